package main

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Database passwords never reach the output: a --db value may carry one in
// the URL's userinfo (postgres://user:PASS@host), in a query parameter
// (?password=PASS, sslpassword=) or as a DSN keyword (password=PASS, or
// 'quoted'), and every line that shows the value (the startup lines,
// `dynamopg status`) shows maskDB's form of it; the message of a fatal
// error goes through maskText, which also blots out the password values
// of the --db given (remember), however an error quotes them.

const masked = "*****"

// secretKeys are the connection parameters whose values are secrets.
var secretKeys = map[string]bool{"password": true, "sslpassword": true}

// keywordSecret finds password=VALUE and sslpassword=VALUE (quoted or not)
// in a DSN, a URL query or any text.
var keywordSecret = regexp.MustCompile(`(?i)\b((?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&'"]*)`)

// userinfoSecret finds the password of a URL's userinfo in any text.
var userinfoSecret = regexp.MustCompile(`(://[^\s/?#@:]*):[^\s/?#]*@`)

// maskDB masks the passwords in a --db value.
func maskDB(db string) string {
	out := db
	if i := strings.Index(db, "://"); i >= 0 {
		rest := db[i+3:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		authority := rest[:end]
		if at := strings.LastIndex(authority, "@"); at >= 0 {
			if c := strings.Index(authority[:at], ":"); c >= 0 {
				authority = authority[:c+1] + masked + authority[at:]
			}
		}
		out = db[:i+3] + authority + maskQuery(rest[end:])
	}
	return maskText(out)
}

// maskQuery masks the secret parameters of "?a=b&password=c#f" (the part of
// a URL after its authority), keeping everything else as it is.
func maskQuery(s string) string {
	q := strings.IndexByte(s, '?')
	if q < 0 {
		return s
	}
	query, frag := s[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, frag = query[:h], query[h:]
	}
	params := strings.Split(query, "&")
	for i, p := range params {
		k, _, ok := strings.Cut(p, "=")
		if key, err := url.QueryUnescape(k); ok && err == nil && secretKeys[strings.ToLower(key)] {
			params[i] = k + "=" + masked
		}
	}
	return s[:q+1] + strings.Join(params, "&") + frag
}

// maskText masks what looks like a password in any text, and the
// remembered secrets.
func maskText(s string) string {
	s = userinfoSecret.ReplaceAllString(s, "${1}:"+masked+"@")
	s = keywordSecret.ReplaceAllString(s, "${1}"+masked)
	secretsMu.Lock()
	defer secretsMu.Unlock()
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, masked)
	}
	return s
}

var (
	secretsMu sync.Mutex
	secrets   []string
)

// minSecret is the shortest remembered secret: a shorter one would blot
// out ordinary text, and the patterns above still mask it where it sits.
const minSecret = 3

// remember records the password values of a --db value, so that maskText
// masks them wherever an error quotes them.
func remember(db string) {
	var found []string
	if u, err := url.Parse(db); err == nil {
		if p, ok := u.User.Password(); ok {
			found = append(found, p)
		}
		for k, vs := range u.Query() {
			if secretKeys[strings.ToLower(k)] {
				found = append(found, vs...)
			}
		}
	}
	for _, m := range keywordSecret.FindAllStringSubmatch(db, -1) {
		found = append(found, strings.Trim(m[2], "'"))
	}
	// The raw forms too: a percent-encoded userinfo or query value.
	if i := strings.Index(db, "://"); i >= 0 {
		for _, m := range userinfoSecret.FindAllString(db, -1) {
			if c := strings.LastIndex(m, ":"); c >= 0 {
				found = append(found, strings.TrimSuffix(m[c+1:], "@"))
			}
		}
	}
	secretsMu.Lock()
	defer secretsMu.Unlock()
	for _, v := range found {
		if len(v) >= minSecret && v != masked {
			secrets = append(secrets, v)
		}
	}
}
