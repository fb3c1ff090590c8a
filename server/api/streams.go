package api

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// The DynamoDB Streams API (target prefix DynamoDBStreams_20120810): one
// shard per stream, records read from the store's change log.

// iteratorTTL is how long a shard iterator stays valid.
const iteratorTTL = 15 * time.Minute

// maxRecords is GetRecords' largest (and default) Limit.
const maxRecords = 1000

// StreamOperations lists the operations of the Streams API.
func (a *API) StreamOperations() []string {
	out := make([]string, 0, len(a.streamOps()))
	for k := range a.streamOps() {
		out = append(out, k)
	}
	return out
}

func (a *API) streamOps() map[string]handler {
	return map[string]handler{
		"ListStreams":      a.listStreams,
		"DescribeStream":   a.describeStream,
		"GetShardIterator": a.getShardIterator,
		"GetRecords":       a.getRecords,
	}
}

// CallStreams runs the named Streams API operation.
func (a *API) CallStreams(ctx context.Context, op string, r *Request) (any, error) {
	h, ok := a.streamOps()[op]
	if !ok {
		return nil, UnknownOperationError()
	}
	if err := checkBody(r.Body); err != nil {
		return nil, err
	}
	return h(ctx, r)
}

// ---------------------------------------------------------------------------
// Errors

func streamNotFound(arn string) *Error {
	return newErr(nsDynamo, "ResourceNotFoundException", http.StatusBadRequest, "Requested resource not found: Stream: "+arn+" not found")
}

func shardNotFound(shard, arn string) *Error {
	return newErr(nsDynamo, "ResourceNotFoundException", http.StatusBadRequest, "Requested resource not found: Shard: "+shard+" in Stream: "+arn+" not found")
}

func invalidIterator() *Error { return ValidationError("Invalid ShardIterator") }

func expiredIterator(issued, now time.Time) *Error {
	return newErr(nsDynamo, "ExpiredIteratorException", http.StatusBadRequest, fmt.Sprintf(
		"Iterator expired. The iterator was created at time %s while right now it is %s which is further in the future than the tolerated delay of %d milliseconds.",
		issued.UTC().Format(time.UnixDate), now.UTC().Format(time.UnixDate), iteratorTTL.Milliseconds()))
}

func trimmedData(seq string) *Error {
	return newErr(nsDynamo, "TrimmedDataAccessException", http.StatusBadRequest,
		"The requested sequence number is beyond the trim horizon: "+seq)
}

// ---------------------------------------------------------------------------
// Streams, found by ARN

// streamRef is one stream of a table, current or disabled.
type streamRef struct {
	table    *store.Table
	label    string
	viewType string
	enabled  bool // the table's current, enabled stream
	created  time.Time
}

func (s *streamRef) arn(region string) string { return streamArn(region, s.table.Name, s.label) }

// shardID names the stream's one shard in the form the SDKs accept.
func (s *streamRef) shardID() string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%d/%s", s.table.ID, s.label)
	return fmt.Sprintf("shardId-%020d-%08x", s.created.UnixMilli(), h.Sum32())
}

// streamsOf lists a table's live streams, newest first.
func streamsOf(t *store.Table, now time.Time) []*streamRef {
	spec := store.StreamSpecOf(t)
	var hist []streamHistEntry
	getOpt(t, optStreamHistory, &hist)
	disabled := map[string]streamHistEntry{}
	for _, h := range hist {
		disabled[h.Label] = h
	}
	var out []*streamRef
	add := func(label, viewType string, enabled bool) {
		if label == "" {
			return
		}
		if !enabled {
			h, ok := disabled[label]
			if !ok || now.Sub(h.DisabledAt) > streamRetention {
				return
			}
			viewType = h.ViewType
		}
		created, _ := time.Parse(streamLabelLayout, label)
		out = append(out, &streamRef{table: t, label: label, viewType: viewType, enabled: enabled, created: created})
	}
	add(spec.Label, spec.ViewType, spec.Enabled)
	for _, l := range spec.Previous {
		add(l, "", false)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].label > out[j].label })
	return out
}

// parseStreamArn splits arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL.
func parseStreamArn(arn string) (table, label string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return "", "", false
	}
	rest, ok := strings.CutPrefix(parts[5], "table/")
	if !ok {
		return "", "", false
	}
	table, label, ok = strings.Cut(rest, "/stream/")
	if !ok || table == "" || label == "" {
		return "", "", false
	}
	return table, label, true
}

// ---------------------------------------------------------------------------
// Sequence numbers

// formatSeq renders a sequence number as the service does: a decimal
// string of at least 21 digits, so that numbers also compare as strings.
func formatSeq(n int64) string { return fmt.Sprintf("%021d", n) }

// parseSeq reads a sequence number; ok is false when it is not one of ours.
func parseSeq(s string) (int64, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

// ---------------------------------------------------------------------------
// ListStreams

type listStreamsInput struct {
	TableName               *string `json:"TableName"`
	Limit                   *int64  `json:"Limit"`
	ExclusiveStartStreamArn *string `json:"ExclusiveStartStreamArn"`
}

type streamSummary struct {
	StreamArn   string `json:"StreamArn"`
	TableName   string `json:"TableName"`
	StreamLabel string `json:"StreamLabel"`
}

func checkStreamLimit(c *constraintErrors, v *int64, max int64) {
	if v == nil {
		return
	}
	if *v < 1 {
		c.add(strp(itoa(*v)), "limit", "Member must have value greater than or equal to 1")
	}
	if *v > max {
		c.add(strp(itoa(*v)), "limit", "Member must have value less than or equal to "+itoa(max))
	}
}

func checkLength(c *constraintErrors, v *string, path string, min, max int) {
	if v == nil {
		return
	}
	if len(*v) < min {
		c.add(v, path, "Member must have length greater than or equal to "+strconv.Itoa(min))
	}
	if len(*v) > max {
		c.add(v, path, "Member must have length less than or equal to "+strconv.Itoa(max))
	}
}

func (a *API) listStreams(ctx context.Context, r *Request) (any, error) {
	var in listStreamsInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	checkName(&c, in.TableName, "tableName", false)
	checkStreamLimit(&c, in.Limit, 100)
	checkLength(&c, in.ExclusiveStartStreamArn, "exclusiveStartStreamArn", 37, 1024)
	checkNoNUL(&c, in.ExclusiveStartStreamArn, "exclusiveStartStreamArn")
	if err := c.err(); err != nil {
		return nil, err
	}
	limit := 100
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	// Streams in (table name, newest label first) order; the exclusive
	// start is a position in that order, so it need not still exist.
	var startTable, startLabel string
	hasStart := false
	if in.ExclusiveStartStreamArn != nil {
		if startTable, startLabel, hasStart = parseStreamArn(*in.ExclusiveStartStreamArn); !hasStart {
			return nil, ValidationError("Invalid ExclusiveStartStreamArn")
		}
	}
	refs, err := a.listedStreams(ctx, in.TableName, time.Now())
	if err != nil {
		return nil, err
	}
	out := []streamSummary{}
	var last string
	more := false
	for _, s := range refs {
		name := s.table.Name
		if hasStart && (name < startTable || (name == startTable && s.label >= startLabel)) {
			continue
		}
		if len(out) == limit {
			more = true
			break
		}
		arn := s.arn(r.Region)
		out = append(out, streamSummary{StreamArn: arn, TableName: name, StreamLabel: s.label})
		last = arn
	}
	res := map[string]any{"Streams": out}
	if more {
		res["LastEvaluatedStreamArn"] = last
	}
	return res, nil
}

// ---------------------------------------------------------------------------
// DescribeStream

type describeStreamInput struct {
	StreamArn             *string      `json:"StreamArn"`
	Limit                 *int64       `json:"Limit"`
	ExclusiveStartShardId *string      `json:"ExclusiveStartShardId"`
	ShardFilter           *shardFilter `json:"ShardFilter"`
}

// shardFilter asks DescribeStream for the children of one shard only
// (Type CHILD_SHARDS, the one type there is).
type shardFilter struct {
	Type    *string `json:"Type"`
	ShardId *string `json:"ShardId"`
}

type sequenceNumberRange struct {
	StartingSequenceNumber string `json:"StartingSequenceNumber"`
	EndingSequenceNumber   string `json:"EndingSequenceNumber,omitempty"`
}

type shardOut struct {
	ShardId             string              `json:"ShardId"`
	SequenceNumberRange sequenceNumberRange `json:"SequenceNumberRange"`
}

type streamDescription struct {
	StreamArn               string         `json:"StreamArn"`
	StreamLabel             string         `json:"StreamLabel"`
	StreamStatus            string         `json:"StreamStatus"`
	StreamViewType          string         `json:"StreamViewType"`
	CreationRequestDateTime epochTime      `json:"CreationRequestDateTime"`
	TableName               string         `json:"TableName"`
	KeySchema               []keySchemaOut `json:"KeySchema"`
	Shards                  []shardOut     `json:"Shards"`
}

func (a *API) describeStream(ctx context.Context, r *Request) (any, error) {
	var in describeStreamInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	c.notNull(in.StreamArn != nil, "streamArn")
	checkLength(&c, in.StreamArn, "streamArn", 37, 1024)
	checkNoNUL(&c, in.StreamArn, "streamArn")
	checkStreamLimit(&c, in.Limit, 100)
	checkLength(&c, in.ExclusiveStartShardId, "exclusiveStartShardId", 28, 65)
	checkNoNUL(&c, in.ExclusiveStartShardId, "exclusiveStartShardId")
	if f := in.ShardFilter; f != nil {
		checkEnum(&c, f.Type, "shardFilter.type", []string{"CHILD_SHARDS"})
		checkLength(&c, f.ShardId, "shardFilter.shardId", 28, 65)
		checkNoNUL(&c, f.ShardId, "shardFilter.shardId")
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	st := a.store
	s, err := a.findStream(ctx, *in.StreamArn)
	if err != nil {
		return nil, err
	}
	first, last, err := st.StreamBounds(ctx, s.table.ID, s.label)
	if err != nil {
		return nil, storeErr(err, "stream bounds")
	}
	status := "DISABLED"
	if s.enabled {
		status = "ENABLED"
	}
	d := streamDescription{
		StreamArn:               *in.StreamArn,
		StreamLabel:             s.label,
		StreamStatus:            status,
		StreamViewType:          s.viewType,
		CreationRequestDateTime: epochTime(s.created),
		TableName:               s.table.Name,
		KeySchema:               keySchemaOf(s.table.Hash, s.table.Range),
		Shards:                  []shardOut{},
	}
	// A stream has one shard, which has no parent: CHILD_SHARDS of any
	// shard is none.
	children := in.ShardFilter != nil && in.ShardFilter.Type != nil
	if !children && (in.ExclusiveStartShardId == nil || *in.ExclusiveStartShardId < s.shardID()) {
		start := first
		if start == 0 {
			start = last + 1
		}
		sh := shardOut{ShardId: s.shardID(), SequenceNumberRange: sequenceNumberRange{StartingSequenceNumber: formatSeq(start)}}
		if !s.enabled {
			end := last
			if end < start {
				end = start
			}
			sh.SequenceNumberRange.EndingSequenceNumber = formatSeq(end)
		}
		d.Shards = append(d.Shards, sh)
	}
	return map[string]any{"StreamDescription": d}, nil
}

// ---------------------------------------------------------------------------
// Shard iterators

// shardIterator is the position an iterator stands at. It is handed out
// as an opaque string with a checksum, so that a mangled one is refused.
type shardIterator struct {
	Table    string `json:"n"`
	TableID  int64  `json:"t"`
	Label    string `json:"l"`
	ViewType string `json:"v"`
	After    int64  `json:"a"`
	Issued   int64  `json:"i"` // unix milliseconds
}

func (it shardIterator) encode() string {
	body, _ := json.Marshal(it)
	sum := crc32.ChecksumIEEE(body)
	return fmt.Sprintf("%08x", sum) + base64.RawURLEncoding.EncodeToString(body)
}

func decodeIterator(s string) (shardIterator, bool) {
	var it shardIterator
	if len(s) < 9 {
		return it, false
	}
	sum, err := strconv.ParseUint(s[:8], 16, 32)
	if err != nil {
		return it, false
	}
	body, err := base64.RawURLEncoding.DecodeString(s[8:])
	if err != nil || uint32(sum) != crc32.ChecksumIEEE(body) {
		return it, false
	}
	if json.Unmarshal(body, &it) != nil || it.Label == "" || it.Table == "" {
		return it, false
	}
	return it, true
}

type getShardIteratorInput struct {
	StreamArn         *string `json:"StreamArn"`
	ShardId           *string `json:"ShardId"`
	ShardIteratorType *string `json:"ShardIteratorType"`
	SequenceNumber    *string `json:"SequenceNumber"`
}

var enumShardIteratorType = []string{"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"}

func (a *API) getShardIterator(ctx context.Context, r *Request) (any, error) {
	var in getShardIteratorInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	c.notNull(in.StreamArn != nil, "streamArn")
	checkLength(&c, in.StreamArn, "streamArn", 37, 1024)
	checkNoNUL(&c, in.StreamArn, "streamArn")
	c.notNull(in.ShardId != nil, "shardId")
	checkLength(&c, in.ShardId, "shardId", 28, 65)
	checkNoNUL(&c, in.ShardId, "shardId")
	c.notNull(in.ShardIteratorType != nil, "shardIteratorType")
	checkEnum(&c, in.ShardIteratorType, "shardIteratorType", enumShardIteratorType)
	checkLength(&c, in.SequenceNumber, "sequenceNumber", 21, 40)
	if err := c.err(); err != nil {
		return nil, err
	}
	typ := *in.ShardIteratorType
	var seq int64
	if typ == "AT_SEQUENCE_NUMBER" || typ == "AFTER_SEQUENCE_NUMBER" {
		if in.SequenceNumber == nil {
			return nil, ValidationError("Must specify a SequenceNumber for the %s shard iterator type", typ)
		}
	} else if in.SequenceNumber != nil {
		// TRIM_HORIZON and LATEST name their own position.
		return nil, ValidationError("Cannot specify a SequenceNumber for the %s shard iterator type", typ)
	}
	if typ == "AT_SEQUENCE_NUMBER" || typ == "AFTER_SEQUENCE_NUMBER" {
		var ok bool
		if seq, ok = parseSeq(*in.SequenceNumber); !ok {
			return nil, ValidationError("Invalid SequenceNumber: %s", *in.SequenceNumber)
		}
	}
	st := a.store
	s, err := a.findStream(ctx, *in.StreamArn)
	if err != nil {
		return nil, err
	}
	if *in.ShardId != s.shardID() {
		return nil, shardNotFound(*in.ShardId, *in.StreamArn)
	}
	first, last, err := st.StreamBounds(ctx, s.table.ID, s.label)
	if err != nil {
		return nil, storeErr(err, "stream bounds")
	}
	it := shardIterator{Table: s.table.Name, TableID: s.table.ID, Label: s.label, ViewType: s.viewType, Issued: time.Now().UnixMilli()}
	switch typ {
	case "TRIM_HORIZON":
		if first > 0 {
			it.After = first - 1
		}
	case "LATEST":
		it.After = last
	case "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER":
		if first > 0 && seq < first {
			return nil, trimmedData(*in.SequenceNumber)
		}
		it.After = seq
		if typ == "AT_SEQUENCE_NUMBER" {
			it.After = seq - 1
		}
	}
	return map[string]any{"ShardIterator": it.encode()}, nil
}

// ---------------------------------------------------------------------------
// GetRecords

type getRecordsInput struct {
	ShardIterator *string `json:"ShardIterator"`
	Limit         *int64  `json:"Limit"`
}

type streamRecordOut struct {
	ApproximateCreationDateTime epochTime `json:"ApproximateCreationDateTime"`
	Keys                        attr.Item `json:"Keys"`
	NewImage                    attr.Item `json:"NewImage,omitempty"`
	OldImage                    attr.Item `json:"OldImage,omitempty"`
	SequenceNumber              string    `json:"SequenceNumber"`
	SizeBytes                   int64     `json:"SizeBytes"`
	StreamViewType              string    `json:"StreamViewType"`
}

type identityOut struct {
	PrincipalId string `json:"PrincipalId"`
	Type        string `json:"Type"`
}

type recordOut struct {
	AwsRegion    string          `json:"awsRegion"`
	Dynamodb     streamRecordOut `json:"dynamodb"`
	EventID      string          `json:"eventID"`
	EventName    string          `json:"eventName"`
	EventSource  string          `json:"eventSource"`
	EventVersion string          `json:"eventVersion"`
	UserIdentity *identityOut    `json:"userIdentity,omitempty"`
}

func (a *API) getRecords(ctx context.Context, r *Request) (any, error) {
	var in getRecordsInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	c.notNull(in.ShardIterator != nil, "shardIterator")
	checkLength(&c, in.ShardIterator, "shardIterator", 1, 2048)
	checkStreamLimit(&c, in.Limit, maxRecords)
	if err := c.err(); err != nil {
		return nil, err
	}
	it, ok := decodeIterator(*in.ShardIterator)
	if !ok {
		return nil, invalidIterator()
	}
	now := time.Now()
	issued := time.UnixMilli(it.Issued)
	if now.Sub(issued) > iteratorTTL {
		return nil, expiredIterator(issued, now)
	}
	st := a.store
	limit := maxRecords
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	// Whether the shard is closed is decided before reading: a closed
	// shard gets no more records, so reading it to the end ends it.
	open := false
	t, err := a.store.TableGet(ctx, it.Table)
	switch {
	case errors.Is(err, store.ErrTableNotFound):
	case err != nil:
		return nil, storeErr(err, "table get")
	default:
		spec := store.StreamSpecOf(t)
		open = t.ID == it.TableID && t.Status != store.StatusDeleting && spec.Enabled && spec.Label == it.Label
	}
	recs, err := st.StreamRead(ctx, it.TableID, it.Label, it.After, limit)
	if err != nil {
		return nil, storeErr(err, "stream read")
	}
	out := make([]recordOut, 0, len(recs))
	for i := range recs {
		out = append(out, renderRecord(&recs[i], &it, r.Region))
		it.After = recs[i].Seq
	}
	res := map[string]any{"Records": out}
	if open || len(recs) == limit {
		it.Issued = now.UnixMilli()
		res["NextShardIterator"] = it.encode()
	}
	return res, nil
}

// renderRecord shows a change as the stream's view type allows.
func renderRecord(rec *store.StreamRecord, it *shardIterator, region string) recordOut {
	d := streamRecordOut{
		ApproximateCreationDateTime: epochTime(rec.CreatedAt.Truncate(time.Second)),
		Keys:                        rec.Keys,
		SequenceNumber:              formatSeq(rec.Seq),
		StreamViewType:              it.ViewType,
	}
	if d.Keys == nil {
		d.Keys = attr.Item{}
	}
	size := d.Keys.Size()
	if it.ViewType == "NEW_IMAGE" || it.ViewType == "NEW_AND_OLD_IMAGES" {
		d.NewImage = rec.NewImage
		size += rec.NewImage.Size()
	}
	if it.ViewType == "OLD_IMAGE" || it.ViewType == "NEW_AND_OLD_IMAGES" {
		d.OldImage = rec.OldImage
		size += rec.OldImage.Size()
	}
	d.SizeBytes = int64(size)
	sum := sha1.Sum([]byte(fmt.Sprintf("%d/%s/%d", it.TableID, it.Label, rec.Seq)))
	o := recordOut{
		AwsRegion:    region,
		Dynamodb:     d,
		EventID:      hex.EncodeToString(sum[:16]),
		EventName:    rec.EventName,
		EventSource:  "aws:dynamodb",
		EventVersion: "1.1",
	}
	if rec.TTL {
		o.UserIdentity = &identityOut{PrincipalId: "dynamodb.amazonaws.com", Type: "Service"}
	}
	return o
}
