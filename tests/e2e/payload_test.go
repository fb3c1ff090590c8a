package e2e

// A request's payload (issue 18, HTTP): a body that is not JSON gets the
// service's SerializationException form, a __type and no message (dynalite
// measured it: {"__type":"com.amazon.coral.service#SerializationException"});
// a JSON value that is not an object is refused, never read as `{}`.

import (
	"testing"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestPayloadNotJSON(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		const want = `{"__type":"com.amazon.coral.service#SerializationException"}`
		for _, body := range []string{
			`{"TableName":`, `hi`, `{"Limit": 1} x`, `{"Limit":1,}`, `{7}`, `}{`, `"""`,
		} {
			resp, data := rawCall(t, s, "ListTables", body)
			if resp.StatusCode != 400 || string(data) != want {
				t.Errorf("ListTables %q: %d %s, want 400 %s", body, resp.StatusCode, data, want)
			}
			checkCRCAndType(t, body, resp, data)
		}
	})
}

func TestPayloadNotAnObject(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		name := createHashTable(t, c, "payload")
		for _, tc := range []struct{ body, msg string }{
			{`null`, ""},
			{` null `, ""},
			{`5`, ""},
			{`"ListTables"`, ""},
			{`true`, ""},
			{`[]`, "Start of list found where not expected"},
			{`[{"Limit":1}]`, "Start of list found where not expected"},
		} {
			for _, op := range []string{"ListTables", "DescribeLimits", "DescribeEndpoints"} {
				resp, data := rawCall(t, s, op, tc.body)
				code, msg := rawError(data)
				if resp.StatusCode != 400 || code != "SerializationException" || msg != tc.msg {
					t.Errorf("%s %q: %d %s, want 400 SerializationException %q", op, tc.body, resp.StatusCode, data, tc.msg)
				}
			}
			resp, data := rawCallTarget(t, s, "ListStreams", true, tc.body)
			if code, _ := rawError(data); resp.StatusCode != 400 || code != "SerializationException" {
				t.Errorf("ListStreams %q: %d %s, want 400 SerializationException", tc.body, resp.StatusCode, data)
			}
			// A write is refused whole: nothing is deleted.
			put(t, c, name, Item{"pk": S("k")})
			resp, data = rawCall(t, s, "DeleteTable", tc.body)
			if code, _ := rawError(data); resp.StatusCode != 400 || code != "SerializationException" {
				t.Errorf("DeleteTable %q: %d %s, want 400 SerializationException", tc.body, resp.StatusCode, data)
			}
		}
		if get(t, c, name, Item{"pk": S("k")}) == nil {
			t.Error("the item is gone after refused requests")
		}
		// An empty body is still read as {}.
		resp, data := rawCall(t, s, "ListTables", "")
		if resp.StatusCode != 200 {
			t.Errorf("ListTables with an empty body: %d %s", resp.StatusCode, data)
		}
	})
}
