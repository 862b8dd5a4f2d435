package operator

import "errors"
import "fmt"
import "strings"

// MaxQuestions caps the questions of one multi-question card.
const MaxQuestions = 10

// validateCard checks a multi-question card: a heading within the question
// limit, no options of its own, and each question valid on its own.
func (q Question) validateCard() error {
	if len(q.Questions) > MaxQuestions {
		return fmt.Errorf("operator: %d questions on one card, over the %d limit: ask the rest in another call", len(q.Questions), MaxQuestions)
	}
	if err := q.checkSizes("the card's heading"); err != nil {
		return err
	}
	if len(q.Options) > 0 || q.AllowFreeText || q.MultiSelect || q.Recommended != "" {
		return errors.New("operator: a card with questions has no options of its own: put options, free text and the recommendation on each question")
	}
	if q.Kind == KindPermission {
		return errors.New("operator: a permission prompt is a single question")
	}
	for i, sub := range q.Questions {
		if len(sub.Questions) > 0 || sub.Kind == KindPermission {
			return fmt.Errorf("operator: question %d holds questions of its own or is a permission prompt: a card's questions are plain questions", i+1)
		}
		if err := sub.Validate(); err != nil {
			return fmt.Errorf("question %d: %w", i+1, err)
		}
	}
	return nil
}

// checkCard checks a card's answer: one per question, each a possible reply.
func checkCard(q Question, a Answer) error {
	if len(a.Labels) > 0 || a.Text != "" || a.Defaulted {
		return errors.New("operator: a card with questions is answered per question by the human, not as a whole")
	}
	if len(a.Answers) != len(q.Questions) {
		return fmt.Errorf("operator: %d answers for a card of %d questions", len(a.Answers), len(q.Questions))
	}
	for i, sub := range a.Answers {
		if err := CheckAnswer(q.Questions[i], sub); err != nil {
			return fmt.Errorf("question %d: %w", i+1, err)
		}
	}
	return nil
}

// fillCard turns a port's skip of a whole card into a skip of each question,
// and sets the card's outcome from its questions': answered when any was.
func fillCard(q Question, a Answer) Answer {
	if len(q.Questions) == 0 {
		return a
	}
	if a.Outcome == Skipped && len(a.Answers) == 0 && len(a.Labels) == 0 && a.Text == "" {
		for range q.Questions {
			a.Answers = append(a.Answers, Answer{Outcome: Skipped})
		}
	}
	if len(a.Answers) == len(q.Questions) {
		a.Outcome = Skipped
		for _, sub := range a.Answers {
			if sub.Outcome == Answered {
				a.Outcome = Answered
			}
		}
	}
	return a
}

// hasRecommendation reports whether q, or any question of its card, has a
// recommended option.
func hasRecommendation(q Question) bool {
	if q.Recommended != "" {
		return true
	}
	for _, sub := range q.Questions {
		if sub.Recommended != "" {
			return true
		}
	}
	return false
}

// defaults is the answer taken at the operator's default-after timeout: the
// answers the human already gave to a card's first questions (partial, as
// a port returned them with its error), then the recommended option of each
// question that has one and a skip for the rest, those marked Defaulted.
func defaults(q Question, partial Answer) Answer {
	one := func(q Question) Answer {
		if q.Recommended == "" {
			return Answer{Outcome: Skipped, Defaulted: true}
		}
		return Answer{Outcome: Answered, Labels: []string{q.Recommended}, Defaulted: true}
	}
	if len(q.Questions) == 0 {
		return one(q)
	}
	a := Answer{Defaulted: true}
	for i, sub := range q.Questions {
		if i < len(partial.Answers) && CheckAnswer(sub, partial.Answers[i]) == nil {
			a.Answers = append(a.Answers, partial.Answers[i])
			continue
		}
		a.Answers = append(a.Answers, one(sub))
	}
	return fillCard(q, a)
}

// reportCard renders a card's answers for the agent, one line block per
// question.
func (a Answer) reportCard() string {
	var b strings.Builder
	answered := 0
	for _, sub := range a.Answers {
		if sub.Outcome == Answered {
			answered++
		}
	}
	fmt.Fprintf(&b, "The operator's card: %d of %d questions answered.", answered, len(a.Answers))
	for i, sub := range a.Answers {
		fmt.Fprintf(&b, "\n%d. ", i+1)
		switch {
		case sub.Defaulted && sub.Outcome == Answered:
			fmt.Fprintf(&b, "Recommended option taken at the operator's timeout (nobody chose it): %s", strings.Join(sub.Labels, "; "))
		case sub.Defaulted:
			b.WriteString("No answer at the operator's timeout and no recommended option: skipped.")
		case sub.Outcome == Skipped:
			b.WriteString("Skipped.")
		default:
			b.WriteString(chosen(sub.Labels))
			if sub.Text != "" {
				if len(sub.Labels) > 0 {
					b.WriteString(". ")
				}
				fmt.Fprintf(&b, "Text: %s", sub.Text)
			}
		}
	}
	for _, sub := range a.Answers {
		if sub.Outcome == Skipped {
			b.WriteString("\nFor each skipped question: " + ContinueInstruction)
			break
		}
	}
	return b.String()
}
