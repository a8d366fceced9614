// Package secret masks secrets in text shown to people: diffs of configs
// and messages that quote input, which end up in CI logs.
//
// A value is masked when its key names a secret (api_key, master_key,
// *_secret, *_token, password, Authorization, ...) or when it looks like
// one (sk-..., a Bearer token, the password of a URL, a long run of
// base64 or hex in a config line). Keys' names are never masked, and no
// price is a secret: a diff of prices names every price it changes. An environment reference
// (os.environ/NAME) names where the secret is, not the secret: it stays.
//
// # Invariants
//
//   - Masking never adds or removes a line: a diff keeps its shape.
//   - A masked value is Mask, whatever its length.
package secret

import (
	"io"
	"regexp"
	"strings"
)

// Mask replaces a secret's value.
const Mask = "********"

// secretWords are parts of key names that hold secrets.
var secretWords = []string{"api_key", "apikey", "api-key", "master_key", "master-key", "secret", "password", "passwd",
	"authorization", "private_key", "access_key", "credential"}

// isSecretKey reports whether a value under key is a secret: its name
// holds one of secretWords, or is token or ends in _token (access_token,
// github_token), prices such as output_cost_per_reasoning_token aside.
func isSecretKey(key string) bool {
	k := strings.ToLower(strings.Trim(strings.TrimSpace(key), `"'`))
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		k = k[i+1:]
	}
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	tokenKey := k == "token" || strings.HasSuffix(k, "_token") || strings.HasSuffix(k, "-token")
	return tokenKey && !isPriceKey(k) && !strings.HasPrefix(k, "max") && !strings.HasPrefix(k, "min")
}

// isPriceKey reports whether a key names a price, as LiteLLM's do
// (input_cost_per_token, output_cost_per_reasoning_token,
// cache_creation_input_token_cost_above_1hr): a price is never a secret.
func isPriceKey(k string) bool {
	return strings.Contains(k, "cost_per_") || strings.Contains(k, "_cost")
}

// pair matches "key: value" in block or flow YAML (and "key=value"): the
// key, the separator and the value up to a comma, brace, comment or end.
var pair = regexp.MustCompile(`([A-Za-z0-9_.\-"']+)(\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,}\]#]+)`)

// Values that look like secrets wherever they stand.
var (
	skKey    = regexp.MustCompile(`\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{6,}`)
	bearer   = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{8,}`)
	urlPass  = regexp.MustCompile(`(://[^/\s:@]+:)[^@\s/]+@`)
	awsKey   = regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)
	longBlob = regexp.MustCompile(`[A-Za-z0-9+/_=\-]{32,}`)
)

// Line masks the secrets of one line of a config file (YAML or .env):
// values of secret keys, keys that look like secrets, and long runs of
// base64 or hex.
func Line(s string) string {
	s = maskText(s)
	if mayNameSecret(s) {
		s = pair.ReplaceAllStringFunc(s, func(m string) string {
			p := pair.FindStringSubmatch(m)
			if !isSecretKey(p[1]) || isReference(p[3]) || p[3] == Mask || strings.Trim(p[3], `"'`) == "" ||
				strings.EqualFold(p[3], "bearer") || strings.EqualFold(p[3], "basic") { // masked after it by maskText
				return m
			}
			return p[1] + p[2] + Mask
		})
	}
	if !hasLongRun(s) {
		return s
	}
	return maskRuns(s)
}

// maskRuns masks the long runs of s that look like generated keys: not a
// key's name (a run followed by ":" or "="), not a name made of words
// (cache_creation_input_token_cost_above_1hr,
// anthropic/claude-sonnet-4-5-20250929).
func maskRuns(s string) string {
	var b strings.Builder
	last := 0
	for _, at := range longBlob.FindAllStringIndex(s, -1) {
		run := s[at[0]:at[1]]
		if namesKey(s[at[1]:]) || !keyLike(run) {
			continue
		}
		b.WriteString(s[last:at[0]])
		b.WriteString(Mask)
		last = at[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// namesKey reports whether the text after a run makes the run a key's
// name: a separator ":" or "=" follows, spaces and a closing quote aside.
func namesKey(after string) bool {
	after = strings.TrimLeft(after, `"' `)
	return strings.HasPrefix(after, ":") || strings.HasPrefix(after, "=")
}

// keyLike reports whether a long run looks like a generated key: letters
// and digits mixed, and not a name made of words (wordy).
func keyLike(run string) bool {
	return !strings.HasPrefix(run, "os.environ/") && mixed(run) && !wordy(run)
}

// wordy reports whether every part of run between "_", "-" and "/" is
// letters only, digits only, or at most 5 characters ("1hr", "200k",
// "v1"), as in names of prices and models; the parts of a generated key
// mix letters and digits at length.
func wordy(run string) bool {
	parts := strings.FieldsFunc(run, func(r rune) bool { return r == '_' || r == '-' || r == '/' })
	for _, p := range parts {
		if len(p) > 5 && mixed(p) {
			return false
		}
	}
	return true
}

// mayNameSecret reports whether s holds a word a secret key's name has:
// the cheap test before the pattern, for the many lines that do not.
func mayNameSecret(s string) bool {
	l := strings.ToLower(s)
	if strings.Contains(strings.ReplaceAll(l, "per_token", ""), "token") { // not the prices' input_cost_per_token
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// hasLongRun reports whether s has a run of 32 characters longBlob
// matches.
func hasLongRun(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '=' || c == '-' {
			if n++; n >= 32 {
				return true
			}
			continue
		}
		n = 0
	}
	return false
}

// maskText masks what looks like a secret anywhere in a message: API keys
// (sk-...), Bearer and Basic credentials, AWS access key ids and the
// passwords of URLs. Key hashes and request ids are left alone.
func maskText(s string) string {
	if strings.Contains(s, "k-") {
		s = skKey.ReplaceAllString(s, Mask)
	}
	if strings.Contains(s, "earer") || strings.Contains(s, "EARER") || strings.Contains(s, "asic") || strings.Contains(s, "ASIC") {
		s = bearer.ReplaceAllString(s, "$1 "+Mask)
	}
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		s = urlPass.ReplaceAllString(s, "${1}"+Mask+"@")
	}
	if strings.Contains(s, "AKIA") || strings.Contains(s, "ASIA") {
		s = awsKey.ReplaceAllString(s, Mask)
	}
	return s
}

// isReference reports whether v names where a secret is kept rather than
// the secret: os.environ/NAME, as LiteLLM reads it.
func isReference(v string) bool {
	v = strings.Trim(v, `"'`)
	return strings.HasPrefix(v, "os.environ/") || strings.HasPrefix(v, "${") || strings.HasPrefix(v, "$")
}

// mixed reports whether a long run holds both letters and digits, as
// generated keys and hex digests do and long words or numbers do not.
func mixed(s string) bool {
	return strings.ContainsAny(s, "0123456789") && strings.IndexFunc(s, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}) >= 0
}

// Writer masks each write with maskText: for streams of messages (stderr).
type Writer struct {
	W io.Writer
}

func (w *Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, maskText(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer under w.
func (w *Writer) Unwrap() io.Writer { return w.W }
