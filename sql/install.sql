-- install.sql: the tern code package entry point. pgstore.Migrate evaluates
-- it (text/template) and runs it in one transaction under tern's advisory
-- lock after the migrations; every file is CREATE OR REPLACE, so it is
-- idempotent. Order matters only for readability: PL/pgSQL bodies bind late.
{{ template "functions/keys.sql" . }}
{{ template "functions/catalog.sql" . }}
{{ template "functions/storage.sql" . }}
{{ template "functions/items.sql" . }}
{{ template "functions/queue.sql" . }}
{{ template "functions/stream.sql" . }}
{{ template "functions/read.sql" . }}
{{ template "functions/build.sql" . }}
{{ template "functions/drop.sql" . }}
