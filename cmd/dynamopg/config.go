package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"
)

// settings registers flags whose defaults come from DYNAMOPG_* environment
// variables, and remembers where each value came from for the startup line.
type settings struct {
	fs     *flag.FlagSet
	env    map[string]string // flag name -> env var
	secret map[string]func(string) string
}

func newSettings(fs *flag.FlagSet) *settings {
	return &settings{fs: fs, env: map[string]string{}, secret: map[string]func(string) string{}}
}

func (s *settings) String(name, env, def, usage string) *string {
	s.env[name] = env
	return s.fs.String(name, envOr(env, def), usage+" (env "+env+")")
}

func (s *settings) Int64(name, env string, def int64, usage string) *int64 {
	s.env[name] = env
	return s.fs.Int64(name, envInt64(env, def), usage+" (env "+env+")")
}

func (s *settings) Int(name, env string, def int, usage string) *int {
	s.env[name] = env
	return s.fs.Int(name, int(envInt64(env, int64(def))), usage+" (env "+env+")")
}

func (s *settings) Bool(name, env string, def bool, usage string) *bool {
	s.env[name] = env
	v := def
	if e, ok := os.LookupEnv(env); ok && e != "" {
		v = e == "true" || e == "1"
	}
	return s.fs.Bool(name, v, usage+" (env "+env+"=true)")
}

func (s *settings) Duration(name, env string, def time.Duration, usage string) *time.Duration {
	s.env[name] = env
	v := def
	if e := os.Getenv(env); e != "" {
		if d, err := time.ParseDuration(e); err == nil {
			v = d
		}
	}
	return s.fs.Duration(name, v, usage+" (env "+env+")")
}

// mask registers a function that hides secrets in a flag's value.
func (s *settings) mask(name string, f func(string) string) { s.secret[name] = f }

// attrs returns every setting as name=value (masked), with its source
// (flag, env or default), sorted by name.
func (s *settings) attrs() []any {
	set := map[string]bool{}
	s.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var names []string
	s.fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	var out []any
	for _, n := range names {
		f := s.fs.Lookup(n)
		v := f.Value.String()
		if m := s.secret[n]; m != nil {
			v = m(v)
		}
		src := "default"
		if set[n] {
			src = "flag"
		} else if e := s.env[n]; e != "" && os.Getenv(e) != "" {
			src = "env"
		}
		out = append(out, slog.String(strings.ReplaceAll(n, "-", "_"), v+" ("+src+")"))
	}
	return out
}

// usage prints the command's flags with their defaults and the settings
// only the environment carries.
func (s *settings) usage(cmd, summary string, envOnly [][2]string) func() {
	return func() {
		w := s.fs.Output()
		fmt.Fprintf(w, "usage: dynamopg %s [flags]\n\n%s\n\nflags (each also read from the environment variable named):\n", cmd, summary)
		s.fs.VisitAll(func(f *flag.Flag) {
			typ, usage := flag.UnquoteUsage(f)
			def := f.DefValue
			if typ == "string" {
				def = fmt.Sprintf("%q", def)
			}
			if typ == "" {
				fmt.Fprintf(w, "  --%s\n", f.Name)
			} else {
				fmt.Fprintf(w, "  --%s %s\n", f.Name, typ)
			}
			fmt.Fprintf(w, "    \t%s (default %s)\n", usage, def)
		})
		if len(envOnly) > 0 {
			fmt.Fprintf(w, "\nenvironment only:\n")
			for _, e := range envOnly {
				fmt.Fprintf(w, "  %s\n    \t%s\n", e[0], e[1])
			}
		}
	}
}
