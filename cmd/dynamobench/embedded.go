package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamopg/dynamopg/dynamopgtest"
)

// ---- the embedded test server's start-up (package dynamopgtest) --------

type embeddedResult struct {
	Runs int `json:"runs"`
	// FirstAnswerMs is from dynamopgtest.Start's call to the first
	// ListTables answered through its Client (in-memory SQLite).
	FirstAnswerMs float64 `json:"first_answer_ms"` // the median
	MinMs         float64 `json:"min_ms"`
	P90Ms         float64 `json:"p90_ms"`
	Error         string  `json:"error,omitempty"`
}

// embeddedRuns is how many servers measureEmbedded starts (one at a time).
const embeddedRuns = 50

// embeddedGoal is the target for the first answer.
const embeddedGoal = 20.0

// measureEmbedded starts embeddedRuns in-process servers, one after the
// other, and times each to its first API answer.
func measureEmbedded(ctx context.Context) (r embeddedResult) {
	var ms []float64
	for range embeddedRuns {
		t0 := time.Now()
		srv, err := dynamopgtest.Start(ctx)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		_, err = srv.Client.ListTables(ctx, &dynamodb.ListTablesInput{})
		d := time.Since(t0)
		if cerr := srv.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			r.Error = err.Error()
			return r
		}
		ms = append(ms, msf(d))
	}
	sort.Float64s(ms)
	r.Runs = len(ms)
	r.MinMs = round1(ms[0])
	r.FirstAnswerMs = round1(ms[len(ms)/2])
	r.P90Ms = round1(ms[len(ms)*9/10])
	return r
}

func (r *embeddedResult) print(f io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintln(f, "\nembedded test server (dynamopgtest.Start, in-memory SQLite) to its first answer:")
	if r.Error != "" {
		fmt.Fprintf(f, "  error: %s\n", r.Error)
		return
	}
	fmt.Fprintf(f, "  median %.1f ms, min %.1f ms, p90 %.1f ms (%d starts)\n", r.FirstAnswerMs, r.MinMs, r.P90Ms, r.Runs)
}

func (r *embeddedResult) goal() (goal, bool) {
	if r == nil || r.Error != "" {
		return goal{}, false
	}
	return goal{Goal: "dynamopgtest start to first answer ms", Measured: r.FirstAnswerMs,
		Want: fmt.Sprintf("< %.0f", embeddedGoal), Met: r.FirstAnswerMs < embeddedGoal}, true
}
