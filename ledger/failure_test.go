package ledger

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// readCalls reads every call of data, failing on a rejection.
func readCalls(t *testing.T, data string) []Call {
	t.Helper()
	r, err := open(context.Background(), "in", bytes.NewReader([]byte(data)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []Call
	var b Batch
	for {
		err := r.Next(context.Background(), &b)
		for _, rej := range b.Rejected {
			t.Errorf("rejected %s: %s", rej.Where(), rej.Reason)
		}
		for i := range b.Calls {
			b.Calls[i].SettleSource()
		}
		out = append(out, b.Calls...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Failure rows as LiteLLM writes them: _ProxyDBLogger.async_post_call_failure_hook
// (litellm/proxy/hooks/proxy_track_cost_callback.py) sets metadata.status
// "failure" and error_information from StandardLoggingPayloadSetup.get_error_information
// (error_code = the exception's status_code as text, error_class = its class
// name, llm_provider, error_message = str(exception)); BerriAI/litellm@062f031992.
func TestFailureDetailIsRead(t *testing.T) {
	long := strings.Repeat("é", 400) // 800 bytes of two-byte characters
	tests := []struct {
		name  string
		input string
		want  Failure
		base  string
	}{
		{
			name: "LiteLLM cooldown refusal, JSON",
			input: `[{"request_id":"r1","startTime":"2026-10-01T08:00:00Z","endTime":"2026-10-01T08:00:00Z","spend":0,"prompt_tokens":0,"completion_tokens":0,` +
				`"model":"gpt-4o","model_group":"gpt-4o","status":"failure","metadata":{"status":"failure","error_information":{"error_code":"429",` +
				`"error_class":"RouterRateLimitError","llm_provider":"","error_message":"No deployments available for selected model, Try again in 5 seconds. Passed model=gpt-4o."}}}]`,
			want: Failure{HTTPStatus: 429, Class: "RouterRateLimitError", Text: "No deployments available for selected model, Try again in 5 seconds. Passed model=gpt-4o."},
		},
		{
			name: "LiteLLM upstream 503, CSV with api_base, error_code as a number",
			input: "request_id,startTime,endTime,spend,prompt_tokens,completion_tokens,model,model_group,status,api_base,metadata\n" +
				`r2,2026-10-01 08:00:00,2026-10-01 08:00:00,0,0,0,gpt-4o,gpt-4o,failure,https://api.openai.com/v1,"{""error_information"":{""error_code"":503,""error_class"":""ServiceUnavailableError"",""llm_provider"":""openai"",""error_message"":""litellm.ServiceUnavailableError: OpenAIException - overloaded""}}"` + "\n",
			want: Failure{HTTPStatus: 503, Class: "ServiceUnavailableError", Provider: "openai", Text: "litellm.ServiceUnavailableError: OpenAIException - overloaded"},
			base: "https://api.openai.com/v1",
		},
		{
			name: "error information on a success is not a failure",
			input: `[{"request_id":"r3","startTime":"2026-10-01T08:00:00Z","spend":0,"prompt_tokens":1,"completion_tokens":1,"model":"m","status":"success",` +
				`"metadata":{"error_information":{"error_code":"500","error_class":"X"}}}]`,
		},
		{
			// helps.failFromErrors (internal/runtime/executor/helps/usage_helpers.go):
			// fail.body is the error text, fail.status_code its HTTP status.
			name: "CLIProxyAPI v7 failed record, body cut at a character boundary",
			input: `{"timestamp":"2026-08-22T14:03:05+08:00","latency_ms":812,"source":"k","auth_index":"3f9a1c0d7be24e51","tokens":{},` +
				`"failed":true,"fail":{"status_code":503,"body":"` + long + `"},"provider":"claude","model":"claude-sonnet-4-5","endpoint":"POST /v1/messages","request_id":"a1b2c3d4"}` + "\n",
			want: Failure{HTTPStatus: 503, Route: "POST /v1/messages", Text: strings.Repeat("é", MaxFailureText/2)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := readCalls(t, tc.input)
			if len(calls) != 1 {
				t.Fatalf("read %d calls, want 1", len(calls))
			}
			got := calls[0].Failure
			if got != tc.want {
				t.Errorf("failure = %+v\nwant      %+v", got, tc.want)
			}
			if len(got.Text) > MaxFailureText || !utf8.ValidString(got.Text) {
				t.Errorf("text of %d bytes, valid UTF-8 %t", len(got.Text), utf8.ValidString(got.Text))
			}
			if calls[0].APIBase != tc.base {
				t.Errorf("api base %q, want %q", calls[0].APIBase, tc.base)
			}
		})
	}
}

func TestCanonicalFailureColumns(t *testing.T) {
	tests := []struct {
		name, row string
		want      Failure
		reject    string
	}{
		{name: "failed row", row: "litellm,2026-10-01T08:00:00Z,m,0,0,failure,429,RouterRateLimitError,No deployments available for selected model.",
			want: Failure{HTTPStatus: 429, Class: "RouterRateLimitError", Text: "No deployments available for selected model."}},
		{name: "success: ignored", row: "litellm,2026-10-01T08:00:00Z,m,0,0,success,500,X,y"},
		{name: "bad status", row: "litellm,2026-10-01T08:00:00Z,m,0,0,failure,5xx,,", reject: `http_status "5xx"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := "gateway,start,model,input_tokens,output_tokens,status,http_status,error_class,error_text\n" + tt.row + "\n"
			r, err := open(context.Background(), "c.csv", bytes.NewReader([]byte(data)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var b Batch
			if err := r.Next(context.Background(), &b); err != nil && err != io.EOF {
				t.Fatal(err)
			}
			if tt.reject != "" {
				if len(b.Rejected) != 1 || !strings.Contains(b.Rejected[0].Reason, tt.reject) {
					t.Fatalf("rejected %v, want %q", b.Rejected, tt.reject)
				}
				return
			}
			if len(b.Calls) != 1 || b.Calls[0].Failure != tt.want {
				t.Errorf("calls %+v rejected %v, want failure %+v", b.Calls, b.Rejected, tt.want)
			}
		})
	}
}
