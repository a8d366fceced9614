package ledger

import (
	"strings"
	"unicode/utf8"
)

// Failure is what a gateway logged of why a call failed. It is the zero
// value on a success, and on a failure whose log says nothing more than
// that it failed (a CLIProxyAPI v6 export, a LiteLLM row without error
// information).
type Failure struct {
	// HTTPStatus is the status the gateway answered or recorded: LiteLLM's
	// error_information.error_code, CLIProxyAPI's fail.status_code or the
	// access log's status; 0 when none was logged.
	HTTPStatus int
	// Class is the error's kind as the gateway names it: LiteLLM's
	// error_class ("RateLimitError", "RouterRateLimitError"), empty for
	// CLIProxyAPI, which logs none.
	Class string
	// Provider is the provider the gateway blamed, when it names one
	// (LiteLLM's error_information.llm_provider).
	Provider string
	// Route is the gateway route the client called, as "METHOD /path"
	// without the query ("POST /v1/messages"), when logged (CLIProxyAPI's
	// endpoint, the access log's request line).
	Route string
	// Text is the start of the error message or body, at most
	// MaxFailureText bytes, cut at a character boundary.
	Text string
}

// MaxFailureText is the most bytes of an error message a call keeps: the
// message names the kind of refusal in its first words, and a provider's
// error body can be megabytes.
const MaxFailureText = 300

// Logged reports whether the gateway logged anything of the failure.
func (f Failure) Logged() bool { return f.HTTPStatus != 0 || f.Class != "" || f.Text != "" }

// failureText bounds an error message to MaxFailureText bytes, without
// splitting a character, and trims the white space around it. The copy
// never shares memory with the input row.
func failureText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > MaxFailureText {
		cut := MaxFailureText
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return strings.Clone(s)
}

// httpStatus reads an HTTP status logged as text ("429", " 503"); 0 for
// anything that is not a status from 100 to 599.
func httpStatus(s string) int {
	s = strings.TrimSpace(s)
	if len(s) != 3 {
		return 0
	}
	n := 0
	for i := 0; i < 3; i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0
		}
		n = n*10 + int(s[i]-'0')
	}
	if n < 100 || n > 599 {
		return 0
	}
	return n
}
