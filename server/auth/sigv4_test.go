package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

func TestVerify(t *testing.T) {
	v := &Verifier{Creds: Credentials{"AKID1": "s3cret"}}
	var got *Error
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_, got = v.Verify(r, body)
	}))
	defer srv.Close()

	send := func(akid, secret string, at time.Time, mutate func(*http.Request)) *Error {
		body := []byte(`{"TableName":"t"}`)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810.DescribeTable")
		if akid != "" {
			sum := sha256.Sum256(body)
			err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: akid, SecretAccessKey: secret},
				req, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", at)
			if err != nil {
				t.Fatal(err)
			}
		}
		if mutate != nil {
			mutate(req)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return got
	}
	if e := send("AKID1", "s3cret", time.Now(), nil); e != nil {
		t.Fatalf("good signature refused: %v", e)
	}
	if e := send("AKID1", "wrong", time.Now(), nil); e == nil || e.Name != "InvalidSignatureException" {
		t.Errorf("wrong secret: %v", e)
	}
	if e := send("NOPE", "s3cret", time.Now(), nil); e == nil || e.Name != "UnrecognizedClientException" {
		t.Errorf("unknown key: %v", e)
	}
	if e := send("", "", time.Now(), nil); e == nil || e.Name != "MissingAuthenticationTokenException" {
		t.Errorf("no header: %v", e)
	}
	if e := send("AKID1", "s3cret", time.Now(), func(r *http.Request) { r.Header.Set("X-Amz-Target", "DynamoDB_20120810.DeleteTable") }); e == nil || e.Name != "InvalidSignatureException" {
		t.Errorf("tampered header: %v", e)
	}
	if e := send("AKID1", "s3cret", time.Now().Add(-20*time.Minute), nil); e == nil || !strings.HasPrefix(e.Message, "Signature expired: ") || !strings.HasSuffix(e.Message, " - 15 min.)") {
		t.Errorf("skewed past: %v", e)
	}
	if e := send("AKID1", "s3cret", time.Now().Add(20*time.Minute), nil); e == nil || !strings.HasPrefix(e.Message, "Signature not yet current: ") {
		t.Errorf("skewed future: %v", e)
	}
}

func TestSkewMessage(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 30, 0, 0, time.UTC)
	v := &Verifier{Creds: Credentials{"AK": "x"}, Now: func() time.Time { return now }}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("X-Amz-Date", "20240501T121000Z")
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AK/20240501/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00")
	_, e := v.Verify(r, nil)
	want := "Signature expired: 20240501T121000Z is now earlier than 20240501T121500Z (20240501T123000Z - 15 min.)"
	if e == nil || e.Name != "InvalidSignatureException" || e.Message != want {
		t.Errorf("got %v, want %s", e, want)
	}
}

func TestCredentials(t *testing.T) {
	c, err := ParseCredentialsEnv("A:x, B:y")
	if err != nil || c["A"] != "x" || c["B"] != "y" {
		t.Errorf("env: %v %v", c, err)
	}
	if _, err := ParseCredentialsEnv("A"); err == nil {
		t.Error("want error for A")
	}
	p := filepath.Join(t.TempDir(), "creds")
	os.WriteFile(p, []byte("# comment\n\nAK1 secret1\nAK2  secret2\n"), 0o600)
	c, err = LoadCredentialsFile(p)
	if err != nil || c["AK1"] != "secret1" || c["AK2"] != "secret2" || len(c) != 2 {
		t.Errorf("file: %v %v", c, err)
	}
}
