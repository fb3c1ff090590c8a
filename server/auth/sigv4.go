// Package auth verifies AWS Signature Version 4 request signatures the way
// DynamoDB does, against a fixed set of access keys loaded from a file or
// the environment.
package auth

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"
)

// MaxSkew is how far a request's X-Amz-Date may be from the server's clock.
const MaxSkew = 15 * time.Minute

const (
	algorithm   = "AWS4-HMAC-SHA256"
	amzDateForm = "20060102T150405Z"
)

// Error is a refusal with the service's error name and message; the caller
// renders it (all are HTTP 400).
type Error struct {
	Name    string // e.g. InvalidSignatureException
	Message string
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }

// The service's refusals.
func missingToken() *Error {
	return &Error{"MissingAuthenticationTokenException", "Request is missing Authentication Token"}
}
func unrecognizedClient() *Error {
	return &Error{"UnrecognizedClientException", "The security token included in the request is invalid."}
}
func invalidSignature() *Error {
	return &Error{"InvalidSignatureException", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."}
}
func incomplete(msg string) *Error { return &Error{"IncompleteSignatureException", msg} }

// Credentials maps access key ids to secret keys.
type Credentials map[string]string

// ParseCredentialsEnv reads "AKID:SECRET,AKID2:SECRET2".
func ParseCredentialsEnv(s string) (Credentials, error) {
	c := Credentials{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, secret, ok := strings.Cut(part, ":")
		if !ok || id == "" || secret == "" {
			return nil, fmt.Errorf("credentials: %q is not ACCESS_KEY_ID:SECRET", maskPair(part))
		}
		c[id] = secret
	}
	return c, nil
}

// LoadCredentialsFile reads lines "ACCESS_KEY_ID SECRET"; blank lines and
// lines starting with # are skipped.
func LoadCredentialsFile(path string) (Credentials, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("credentials file: %w", err)
	}
	defer f.Close()
	c := Credentials{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 2 {
			return nil, fmt.Errorf("credentials file %s:%d: want ACCESS_KEY_ID SECRET", path, line)
		}
		c[fields[0]] = fields[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("credentials file: %w", err)
	}
	return c, nil
}

func maskPair(s string) string {
	if id, _, ok := strings.Cut(s, ":"); ok {
		return id + ":*****"
	}
	return "*****"
}

// Verifier checks SigV4 signatures.
type Verifier struct {
	Creds Credentials
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Signed is a request whose Authorization header passed every check that
// needs no body (CheckHeaders); VerifyBody checks its signature.
type Signed struct {
	// AccessKeyID is the verified request's access key id.
	AccessKeyID   string
	secret        string
	amzDate       string
	scope         []string // date, region, service
	signedHeaders []string
	signature     string
	// declaredHash is X-Amz-Content-Sha256 when the client sent it (and
	// signed it): the signature over it is checked before the body is
	// read, the body against it after.
	declaredHash string
	verified     bool
}

// Verify checks r's Authorization header against body. It returns the
// access key id on success, or an *Error.
func (v *Verifier) Verify(r *http.Request, body []byte) (string, *Error) {
	s, err := v.CheckHeaders(r)
	if err != nil {
		return "", err
	}
	if err := s.VerifyBody(r, body); err != nil {
		return "", err
	}
	return s.AccessKeyID, nil
}

// CheckHeaders checks what of r's signature needs no body: the header's
// form, the signed headers (host and every x-amz-* header sent must be
// signed), the access key, the date and its skew, and, when the client
// sent X-Amz-Content-Sha256, the signature itself. A request that fails
// here never has its body read.
func (v *Verifier) CheckHeaders(r *http.Request) (*Signed, *Error) {
	authz := r.Header.Get("Authorization")
	if authz == "" {
		return nil, missingToken()
	}
	if !strings.HasPrefix(authz, algorithm+" ") {
		return nil, incomplete("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=" + authz)
	}
	params := parseAuthParams(strings.TrimPrefix(authz, algorithm+" "))
	credential, signedHeaders, signature := params["Credential"], params["SignedHeaders"], params["Signature"]
	var missing []string
	if credential == "" {
		missing = append(missing, "Authorization header requires 'Credential' parameter.")
	}
	if signature == "" {
		missing = append(missing, "Authorization header requires 'Signature' parameter.")
	}
	if signedHeaders == "" {
		missing = append(missing, "Authorization header requires 'SignedHeaders' parameter.")
	}
	amzDate := r.Header.Get("X-Amz-Date")
	if amzDate == "" {
		amzDate = r.Header.Get("Date")
	}
	if amzDate == "" {
		missing = append(missing, "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
	}
	if len(missing) > 0 {
		return nil, incomplete(strings.Join(missing, " ") + " Authorization=" + authz)
	}
	signed := strings.Split(signedHeaders, ";")
	if err := checkSignedHeaders(r, signed); err != nil {
		return nil, err
	}
	scope := strings.Split(credential, "/")
	if len(scope) != 5 || scope[4] != "aws4_request" {
		return nil, incomplete("Credential should be scoped to a valid region. ")
	}
	akid := scope[0]
	secret, ok := v.Creds[akid]
	if !ok {
		return nil, unrecognizedClient()
	}
	t, err := time.Parse(amzDateForm, amzDate)
	if err != nil {
		t, err = http.ParseTime(amzDate)
		if err != nil {
			return nil, incomplete("Date must be in ISO-8601 'basic format'. Got '" + amzDate + "'. See http://en.wikipedia.org/wiki/ISO_8601")
		}
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	n := now().UTC()
	t = t.UTC()
	switch {
	case t.Before(n.Add(-MaxSkew)):
		return nil, &Error{"InvalidSignatureException", fmt.Sprintf("Signature expired: %s is now earlier than %s (%s - 15 min.)",
			t.Format(amzDateForm), n.Add(-MaxSkew).Format(amzDateForm), n.Format(amzDateForm))}
	case t.After(n.Add(MaxSkew)):
		return nil, &Error{"InvalidSignatureException", fmt.Sprintf("Signature not yet current: %s is still later than %s (%s + 15 min.)",
			t.Format(amzDateForm), n.Add(MaxSkew).Format(amzDateForm), n.Format(amzDateForm))}
	}
	if scope[1] != t.Format("20060102") {
		return nil, invalidSignature()
	}
	s := &Signed{AccessKeyID: akid, secret: secret, amzDate: amzDate, scope: scope[1:4], signedHeaders: signed, signature: strings.ToLower(signature)}
	if h := r.Header.Get("X-Amz-Content-Sha256"); h != "" {
		// UNSIGNED-PAYLOAD, STREAMING-… and anything else that is not a
		// SHA-256 would leave the body unsigned: the body must be signed.
		if !isSHA256Hex(h) {
			return nil, invalidSignature()
		}
		s.declaredHash = strings.ToLower(h)
		if !s.matches(r, s.declaredHash) {
			return nil, invalidSignature()
		}
		s.verified = true
	}
	return s, nil
}

// VerifyBody checks the signature over body (or, when it was checked over
// the declared X-Amz-Content-Sha256, the body against that hash).
func (s *Signed) VerifyBody(r *http.Request, body []byte) *Error {
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	if s.verified {
		if hash != s.declaredHash {
			return invalidSignature()
		}
		return nil
	}
	if !s.matches(r, hash) {
		return invalidSignature()
	}
	return nil
}

// matches reports whether the request's signature is the one computed over
// its canonical form with the given payload hash.
func (s *Signed) matches(r *http.Request, payloadHash string) bool {
	want := Sign(s.secret, s.amzDate, s.scope[0], s.scope[1], s.scope[2], CanonicalRequest(r, s.signedHeaders, payloadHash))
	return hmac.Equal([]byte(want), []byte(s.signature))
}

// checkSignedHeaders refuses a signature that leaves part of the request
// unsigned: host must be signed (the service's own refusal), and so must
// every x-amz-* header sent, X-Amz-Target first among them, or a captured
// GetItem could be replayed as a DeleteItem.
func checkSignedHeaders(r *http.Request, signed []string) *Error {
	set := make(map[string]bool, len(signed))
	for _, h := range signed {
		set[h] = true
	}
	if !set["host"] {
		return &Error{"InvalidSignatureException", "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."}
	}
	for name := range r.Header {
		if l := strings.ToLower(name); strings.HasPrefix(l, "x-amz-") && !set[l] {
			return invalidSignature()
		}
	}
	return nil
}

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// parseAuthParams splits "Credential=…, SignedHeaders=…, Signature=…".
func parseAuthParams(s string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

// CanonicalRequest builds SigV4's canonical request of r, whose body hashes
// to payloadHash (hex SHA-256).
func CanonicalRequest(r *http.Request, signedHeaders []string, payloadHash string) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte('\n')
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	b.WriteString(path)
	b.WriteByte('\n')
	b.WriteString(canonicalQuery(r.URL.Query()))
	b.WriteByte('\n')
	for _, h := range signedHeaders {
		b.WriteString(h)
		b.WriteByte(':')
		b.WriteString(headerValue(r, h))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Join(signedHeaders, ";"))
	b.WriteByte('\n')
	b.WriteString(payloadHash)
	return b.String()
}

func headerValue(r *http.Request, name string) string {
	switch name {
	case "host":
		return r.Host
	case "content-length":
		if v := r.Header.Get("Content-Length"); v != "" {
			return v
		}
		return fmt.Sprint(r.ContentLength)
	}
	vals := r.Header.Values(name)
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(out, ",")
}

func canonicalQuery(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		vals := append([]string(nil), q[k]...)
		sort.Strings(vals)
		for _, v := range vals {
			parts = append(parts, uriEncode(k)+"="+uriEncode(v))
		}
	}
	return strings.Join(parts, "&")
}

func uriEncode(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

// Sign computes the hex signature of a canonical request.
func Sign(secret, amzDate, date, region, service, canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	scope := date + "/" + region + "/" + service + "/aws4_request"
	toSign := algorithm + "\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	k := hmacSHA256([]byte("AWS4"+secret), date)
	k = hmacSHA256(k, region)
	k = hmacSHA256(k, service)
	k = hmacSHA256(k, "aws4_request")
	return hex.EncodeToString(hmacSHA256(k, toSign))
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}
