// Package dynamopg holds the PostgreSQL schema files that the Go code embeds:
// the tern migrations (migrations/) and the PL/pgSQL code package (sql/).
// It lives at the module root because go:embed cannot reach parent
// directories; pgstore is its only user.
package dynamopg

import "embed"

// Migrations holds migrations/NNN_name.sql, tern's format.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Functions holds the tern code package: sql/install.sql and the function
// files it includes, sql/functions/*.sql.
//
//go:embed sql/install.sql sql/functions/*.sql
var Functions embed.FS
