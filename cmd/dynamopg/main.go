// Command dynamopg is the DynamoDB-compatible server: `dynamopg serve` runs
// it, `dynamopg migrate` applies the PostgreSQL schema, `dynamopg status`
// prints what the database holds and is doing, `dynamopg version` prints the
// build.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	_ "github.com/dynamopg/dynamopg/cmd/dynamopg/internal/buildorder" // SQLite first in a cold build
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	ctx := context.Background()
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(ctx, os.Args[2:])
	case "migrate":
		err = migrate(ctx, os.Args[2:])
	case "status":
		err = status(ctx, os.Args[2:])
	case "version", "--version", "-v":
		fmt.Println("dynamopg", version)
	case "help", "-h", "--help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "dynamopg: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dynamopg:", maskText(err.Error()))
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `usage: dynamopg <command> [flags]

commands:
  serve     run the DynamoDB-compatible server (see: dynamopg serve --help)
  migrate   apply the PostgreSQL schema and functions, then exit
  status    print tables, index builds, queue depth and recovery worker state
  version   print the version
`)
}

// envOr returns the environment variable's value, or def when unset.
func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

// envInt64 returns the environment variable as an integer, or def when unset
// or not a number.
func envInt64(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil {
		return v
	}
	return def
}
