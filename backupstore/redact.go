package backupstore

import (
	"cmp"
	"net/url"
	"slices"
	"strings"
)

// redacted stands for a secret in what the store shows.
const redacted = "REDACTED"

// credentialWords are the parts of a query parameter's name that make its value a secret:
// secret_access_key, password, sas_token, X-Amz-Signature, X-Amz-Credential, AWSAccessKeyId,
// kmskeyid, ... (compared without regard to case).
var credentialWords = []string{"secret", "password", "passwd", "pwd", "token", "key", "sig", "credential", "auth", "session"}

// credentialName reports whether a query parameter named name holds a secret.
func credentialName(name string) bool {
	name = strings.ToLower(name)
	for _, w := range credentialWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// Redact returns rawURL as it may be shown: without its user information, with the value of
// every query parameter whose name suggests a credential (holding "secret", "password",
// "passwd", "pwd", "token", "key", "sig", "credential", "auth" or "session", in any case)
// replaced by "REDACTED", and a query value that is itself a URL (an endpoint) redacted the
// same way. What does not parse as a URL, or would not once shown, is returned as
// "<unparsable URL>".
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return unparsable
	}
	u.User = nil
	q := u.Query()
	changed := false
	for k, vs := range q {
		for i, v := range vs {
			w := v
			if credentialName(k) {
				w = redacted
			} else if strings.Contains(v, "://") {
				w = Redact(v)
			}
			if w != v {
				vs[i], changed = w, true
			}
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	shown := u.String()
	// net/url renders some paths as what it cannot read back ("// ") or reads back as
	// another URL ("// @", rendered "//%20@": an empty host with user information).
	if v, err := url.Parse(shown); err != nil || v.User != nil || v.Host != u.Host || v.Path != u.Path {
		return unparsable
	}
	return shown
}

// unparsable is what Redact shows of a text that is not a URL.
const unparsable = "<unparsable URL>"

// secretsOf returns every text of rawURL that Redact leaves out (its user information, the
// values of its credential-like query parameters, those of a URL in a query value), in each
// form a driver may quote it in: as written, decoded, and encoded for a query or a path.
// Longest first, so that replacing them in turn leaves no part of a longer one. What does
// not parse as a URL is a secret whole.
func secretsOf(rawURL string) []string {
	var out []string
	// add adds a secret, given decoded, in its forms: decoded, encoded for a query and for a
	// path, and as it was written in the URL.
	add := func(decoded string, written ...string) {
		for _, f := range append([]string{decoded, url.QueryEscape(decoded), url.PathEscape(decoded)}, written...) {
			if f != "" && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	walk := func(raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			add(raw)
			return
		}
		if u.User != nil {
			add(u.User.Username(), u.User.String()) // written: escaped, with the password
			if p, ok := u.User.Password(); ok {
				add(p)
			}
		}
		for _, kv := range strings.FieldsFunc(u.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
			k, v, _ := strings.Cut(kv, "=")
			if dk, err := url.QueryUnescape(k); err == nil {
				k = dk
			}
			dv, err := url.QueryUnescape(v)
			if err != nil {
				dv = v
			}
			switch {
			case credentialName(k):
				add(dv, v)
			case strings.Contains(dv, "://"):
				// A URL in a query value (an endpoint): its secrets, also as they are
				// written once that URL is itself encoded into a query.
				for _, f := range secretsOf(dv) {
					add(f, url.QueryEscape(f), url.PathEscape(f))
				}
			}
		}
	}
	walk(rawURL)
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out
}

// scrub returns err with every secret of secrets taken out of its text (nil for nil).
func scrub(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	msg := err.Error()
	clean := msg
	for _, s := range secrets {
		clean = strings.ReplaceAll(clean, s, redacted)
	}
	if clean == msg {
		return err
	}
	return &scrubbed{msg: clean, err: err}
}

// scrubbed is an error whose text had secrets taken out; it unwraps to the original.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }
