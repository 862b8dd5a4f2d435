package server

import "context"
import "crypto/hmac"
import "crypto/rand"
import "crypto/sha256"
import "crypto/subtle"
import "encoding/base64"
import "encoding/hex"
import "encoding/json"
import "errors"
import "fmt"
import "strings"
import "sync"
import "time"

import "github.com/modelcontextprotocol/go-sdk/jsonrpc"
import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/operator"
import "github.com/tetherhq/tether/tools"

// A client of modernVersion cannot be asked while a call waits: the server
// answers the call with input requests (a form to fill in) and a request
// state, and the client calls again with the answers and that state. The
// call then runs again from its start, and each question it asks, in the
// same order, is answered from what the client sent; a question past them
// ends the call with the next input request. Nothing waits on the server
// between the two calls.
//
// The request state is the answers so far, bound to the call (tool and
// arguments), to who may resume it (the principal and conversation, see
// Options.bind) and to an expiry, sealed with an HMAC under a key of this
// process: a client cannot forge or alter answers it did not give, another
// principal cannot resume the call, and a state from another process (or an
// older one) is refused. Each state resumes its call once: a replay is
// refused, so an approval it carries cannot run the call twice.

// stateKey seals request states; a new process refuses older ones.
// It is made on first use: a process that serves no call needs none.
var stateKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
})

// errInputRequired ends a call whose next question goes to the client as
// an input request; the call's result is replaced by that request.
var errInputRequired = errors.New("server: the call needs the client's input")

// inputAnswer is one answer, with the hash of the question it answers.
type inputAnswer struct {
	Q       string         `json:"q"`
	Action  string         `json:"a"`
	Content map[string]any `json:"c,omitempty"`
}

// sealedState is what a request state holds.
type sealedState struct {
	Bind    string        `json:"b"` // sha256 of Options.bind
	Tool    string        `json:"t"`
	Args    string        `json:"h"` // sha256 of the arguments
	Answers []inputAnswer `json:"ans"`
	Pending string        `json:"p"` // hash of the question asked last
	Expires int64         `json:"e"`
	Nonce   string        `json:"n"` // makes each state single-use (spentStates)
}

// spentStates holds the nonces of request states already resumed, until
// they expire: a state carries answers (an approval among them), and a
// replay within its deadline would run the approved call again.
var spentStates = struct {
	sync.Mutex
	until map[string]int64
}{until: map[string]int64{}}

// maxSpent bounds spentStates; past it, the states that expired are
// dropped and, if none did, the resume is refused (fail closed) until some
// do.
const maxSpent = 1 << 16

// spend records nonce as resumed; it reports false when it was already, or
// when the record is full of states not yet expired.
func spend(nonce string, expires int64) bool {
	spentStates.Lock()
	defer spentStates.Unlock()
	if _, used := spentStates.until[nonce]; used {
		return false
	}
	if len(spentStates.until) >= maxSpent {
		now := time.Now().Unix()
		for n, e := range spentStates.until {
			if e < now {
				delete(spentStates.until, n)
			}
		}
		if len(spentStates.until) >= maxSpent {
			return false
		}
	}
	spentStates.until[nonce] = expires
	return true
}

// inputState is the questions of one call of a modernVersion client.
type inputState struct {
	tool    string
	answers []inputAnswer
	next    int
	pending *mcp.ElicitParams
	pendQ   string
}

type inputStateKey struct{}
type topApprovalKey struct{}

func inputFrom(ctx context.Context) *inputState {
	st, _ := ctx.Value(inputStateKey{}).(*inputState)
	return st
}

// modernSession reports whether ss serves a request of modernVersion.
func modernSession(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= modernVersion
}

func sum(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func questionHash(message string, schema any) string {
	b, _ := json.Marshal(schema)
	return sum(message, string(b))[:32]
}

// inputID is the id of the input request for the n-th question of a call.
func inputID(n int) string { return fmt.Sprintf("q%d", n+1) }

// resume returns the input state of a call from its request state and
// input responses (none on a first call).
func (s *Server) resume(name string, args json.RawMessage, p *mcp.CallToolParamsRaw) (*inputState, error) {
	st := &inputState{tool: name}
	if p.RequestState == "" {
		if len(p.InputResponses) > 0 {
			return nil, errors.New("server: inputResponses came without the requestState they answer; send back the requestState of the result that asked")
		}
		return st, nil
	}
	again := "; call the tool again without requestState and inputResponses to be asked again"
	var ss sealedState
	body, mac, ok := strings.Cut(p.RequestState, ".")
	raw, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(mac)
	m := hmac.New(sha256.New, stateKey())
	m.Write([]byte(body))
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(got, m.Sum(nil)) || json.Unmarshal(raw, &ss) != nil {
		return nil, errors.New("server: requestState was not issued by this server (altered, from a server that has restarted since, or from another replica: behind a proxy, send a " + ConversationHeader + " key so that the retry reaches the replica that asked)" + again)
	}
	if subtle.ConstantTimeCompare([]byte(ss.Bind), []byte(sum(s.opts.bind))) != 1 {
		return nil, errors.New("server: requestState belongs to another principal or conversation" + again)
	}
	if ss.Tool != name || ss.Args != sum(string(args)) {
		return nil, errors.New("server: requestState belongs to another call (a different tool or arguments); send it back with the call that got it" + again)
	}
	if time.Now().Unix() > ss.Expires {
		return nil, errors.New("server: requestState expired" + again)
	}
	resp, ok := p.InputResponses[inputID(len(ss.Answers))]
	er, isElicit := resp.(*mcp.ElicitResult)
	if !ok || !isElicit {
		return nil, fmt.Errorf("server: inputResponses has no elicitation result for %q, the question this requestState asked", inputID(len(ss.Answers)))
	}
	if ss.Nonce == "" || !spend(ss.Nonce, ss.Expires) {
		return nil, errors.New("server: requestState was already used (each one resumes its call once)" + again)
	}
	st.answers = append(ss.Answers, inputAnswer{Q: ss.Pending, Action: er.Action, Content: er.Content})
	return st, nil
}

// seal returns the request state that resumes st's call.
func (s *Server) seal(st *inputState, args json.RawMessage) string {
	ttl := s.opts.ApprovalTimeout
	if ttl <= 0 {
		ttl = operator.DefaultTimeout
	}
	b, _ := json.Marshal(sealedState{
		Bind: sum(s.opts.bind), Tool: st.tool, Args: sum(string(args)),
		Answers: st.answers, Pending: st.pendQ, Expires: time.Now().Add(ttl).Unix(), Nonce: rand.Text(),
	})
	body := base64.RawURLEncoding.EncodeToString(b)
	m := hmac.New(sha256.New, stateKey())
	m.Write([]byte(body))
	return body + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// elicit answers a question of st's call from the answers the client sent,
// or makes it the call's input request.
func (st *inputState) elicit(ctx context.Context, message string, schema any) (string, map[string]any, error) {
	q := questionHash(message, schema)
	if st.next < len(st.answers) {
		a := st.answers[st.next]
		st.next++
		if a.Q != q {
			return "", nil, errors.New("server: the call asked another question than the one answered (the workspace changed between the two calls); call the tool again without requestState")
		}
		return a.Action, a.Content, nil
	}
	top, _ := ctx.Value(topApprovalKey{}).(bool)
	if !top && st.tool != "ask_user" {
		// A question from inside a cell (its tool("ask_user"), or an approval
		// of a tool it calls): answering it means running the cell again from
		// its start, which would repeat what it did before asking.
		return "", nil, fmt.Errorf("server: a question from inside an eval cell cannot be asked of an MCP %s client (the cell would have to run again to get the answer); call ask_user, or the tool needing approval, directly instead of from the cell: %w", modernVersion, tools.ErrNoApprover)
	}
	if st.pending != nil {
		return "", nil, errors.New("server: a call asked a second question before the first was answered")
	}
	st.pending = &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema}
	st.pendQ = q
	return "", nil, errInputRequired
}

// inputResult is the result that asks st's pending question.
func (s *Server) inputResult(st *inputState, args json.RawMessage) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{inputID(len(st.answers)): st.pending},
		RequestState:  s.seal(st, args),
	}
}

// badState is the error a call with a request state it cannot resume gets.
func badState(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
}
