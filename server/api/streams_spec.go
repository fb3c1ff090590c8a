package api

import (
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// StreamSpecification on CreateTable and UpdateTable, and the stream members
// of DescribeTable. The stream's state lives in Table.Options[store.OptionStream]
// (store.StreamSpec), which the stores read inside each write's transaction;
// the API keeps, beside it, the history of the table's disabled streams
// (their view types and when they were disabled) so that an old stream can
// still be described and read until it expires.

// streamRetention is how long records, and so a disabled stream, are kept.
const streamRetention = 24 * time.Hour

// streamLabelLayout is the service's StreamLabel: the stream's creation time.
const streamLabelLayout = "2006-01-02T15:04:05.000"

// optStreamHistory is the API's record of the table's disabled streams.
const optStreamHistory = "streamHistory" // []streamHistEntry

var enumStreamViewType = []string{"OLD_IMAGE", "KEYS_ONLY", "NEW_AND_OLD_IMAGES", "NEW_IMAGE"}

type streamSpecificationInput struct {
	StreamEnabled  *bool   `json:"StreamEnabled"`
	StreamViewType *string `json:"StreamViewType"`
}

type streamHistEntry struct {
	Label      string    `json:"label"`
	ViewType   string    `json:"viewType"`
	DisabledAt time.Time `json:"disabledAt"`
}

type streamSpecificationOut struct {
	StreamEnabled  bool   `json:"StreamEnabled"`
	StreamViewType string `json:"StreamViewType,omitempty"`
}

// checkStreamMembers records the member constraints of a StreamSpecification.
func checkStreamMembers(c *constraintErrors, s *streamSpecificationInput) {
	if s == nil {
		return
	}
	c.notNull(s.StreamEnabled != nil, "streamSpecification.streamEnabled")
	checkEnum(c, s.StreamViewType, "streamSpecification.streamViewType", enumStreamViewType)
}

// applyCreateStream validates a CreateTable's StreamSpecification and
// enables the table's stream.
func applyCreateStream(t *store.Table, s *streamSpecificationInput) error {
	if s == nil {
		return nil
	}
	enabled := *s.StreamEnabled
	switch {
	case enabled && s.StreamViewType == nil:
		return invalid("Table is being created with a stream enabled, UpdateViewType is required")
	case !enabled && s.StreamViewType != nil:
		return invalid("Table is being created with a stream disabled, UpdateViewType should not be specified")
	case !enabled:
		return nil
	}
	setOpt(t, store.OptionStream, store.StreamSpec{Enabled: true, ViewType: *s.StreamViewType, Label: newStreamLabel(time.Now(), "")})
	return nil
}

// checkStreamUpdate applies the stateless rules of an UpdateTable's
// StreamSpecification, including what it may not be combined with.
func checkStreamUpdate(in *updateTableInput) error {
	s := in.StreamSpecification
	if s == nil {
		return nil
	}
	o := &in.tableOptionsInput
	switch {
	case o.SSESpecification != nil:
		return invalid("Server-Side Encryption modification must be the only operation in the request")
	case o.TableClass != nil:
		return invalid("TableClass modification must be the only operation in the request")
	case o.DeletionProtectionEnabled != nil:
		return invalid("DeletionProtection modification must be the only operation in the request")
	case o.OnDemandThroughput != nil:
		return invalid("OnDemandThroughput can only be combined with BillingMode in an UpdateTable request")
	case !o.WarmThroughput.empty():
		return invalid("WarmThroughput must be the only operation in the request")
	case in.ProvisionedThroughput != nil || (in.BillingMode != nil && *in.BillingMode == "PROVISIONED"):
		return invalid("You cannot modify stream status while updating table IOPS")
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Create != nil || u.Delete != nil {
			return invalid("You cannot create or delete index while changing stream status")
		}
	}
	if *s.StreamEnabled && s.StreamViewType == nil {
		return invalid("If stream is being enabled then UpdateViewType is required")
	}
	if !*s.StreamEnabled && s.StreamViewType != nil {
		return invalid("If stream is being disabled, then UpdateViewType must not be specified")
	}
	return nil
}

// applyStreamUpdate enables or disables the table's stream under
// TableUpdate's lock. Enabling always starts a new stream (a new label);
// the disabled ones stay readable until they expire.
func applyStreamUpdate(t *store.Table, s *streamSpecificationInput) error {
	if s == nil {
		return nil
	}
	now := time.Now().UTC()
	cur := store.StreamSpecOf(t)
	var hist []streamHistEntry
	getOpt(t, optStreamHistory, &hist)
	if *s.StreamEnabled {
		if cur.Enabled {
			return ValidationError("Table already has an enabled stream: TableName: %s", t.Name)
		}
		next := store.StreamSpec{Enabled: true, ViewType: *s.StreamViewType, Label: newStreamLabel(now, cur.Label)}
		if cur.Label != "" {
			next.Previous = append([]string{cur.Label}, cur.Previous...)
		}
		cur = next
	} else {
		if !cur.Enabled {
			return ValidationError("Table has no stream to disable: TableName: %s", t.Name)
		}
		hist = append(hist, streamHistEntry{Label: cur.Label, ViewType: cur.ViewType, DisabledAt: now})
		cur.Enabled = false
	}
	// Forget the streams that expired.
	keep := map[string]bool{cur.Label: true}
	var kept []streamHistEntry
	for _, h := range hist {
		if now.Sub(h.DisabledAt) <= streamRetention {
			kept = append(kept, h)
			keep[h.Label] = true
		}
	}
	var prev []string
	for _, l := range cur.Previous {
		if keep[l] {
			prev = append(prev, l)
		}
	}
	cur.Previous = prev
	setOpt(t, store.OptionStream, cur)
	if len(kept) == 0 {
		setOpt(t, optStreamHistory, nil)
	} else {
		setOpt(t, optStreamHistory, kept)
	}
	return nil
}

// newStreamLabel is the label of a stream created at now; it sorts after
// the table's previous label even within one millisecond.
func newStreamLabel(now time.Time, prev string) string {
	now = now.UTC().Truncate(time.Millisecond)
	if p, err := time.Parse(streamLabelLayout, prev); err == nil && !now.After(p) {
		now = p.Add(time.Millisecond)
	}
	return now.Format(streamLabelLayout)
}

func streamArn(region, table, label string) string {
	return tableArn(region, table) + "/stream/" + label
}

// describeStreamMembers adds StreamSpecification, LatestStreamArn and
// LatestStreamLabel to a table description, as the service shows them: the
// specification only while the stream is enabled, the latest stream's ARN
// and label as long as the table has had one.
func describeStreamMembers(d *tableDescription, t *store.Table, region string) {
	s := store.StreamSpecOf(t)
	if s.Enabled {
		d.StreamSpecification = &streamSpecificationOut{StreamEnabled: true, StreamViewType: s.ViewType}
	}
	if s.Label != "" {
		d.LatestStreamArn = streamArn(region, t.Name, s.Label)
		d.LatestStreamLabel = s.Label
	}
}
