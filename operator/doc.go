// Package operator asks the human operator of a run a question and waits for
// the answer. A QuestionPort is one way to reach a human: MCP elicitation (the
// client renders the question), a terminal card, or the web operator console.
// Permission prompts from approvals render as the same card in every port.
//
// Outcomes are typed and never invented: an answer carries the labels the human
// chose and the text they typed; a skip is a success (continue on your stated
// assumption); a timeout is an error carrying the same instruction; with no
// human connected a question fails at once instead of blocking. A card may
// hold several questions (Question.Questions), each answered or skipped on
// its own. The one answer not given by the human is the operator's own
// choice: with Wait.DefaultAfter set, a question nobody answered takes its
// recommended option, and the answer says so (Defaulted).
//
// What ask_user does for its caller is in docs/tools.md ("ask_user and vibe
// mode"); the console's login in docs/security.md.
//
// operator is a resource tools use: it imports internal/ and its transports'
// modules (the MCP SDK, chromedp for tests, a terminal) only, never tools,
// server or cmd.
package operator
