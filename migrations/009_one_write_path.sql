-- 009_one_write_path: one write path per item write on PostgreSQL, and
-- one queue pass. Every item write now runs the per-table statements
-- pgstore prepares (sql/functions/items.sql: item_write_sql,
-- index_write_sql; stream.sql: stream_record_sql), the indexing rules
-- (which items an index holds, and what of them) have one definition,
-- dynamopg.index_row_sql (catalog.sql), from which every statement that
-- writes index rows is built, and the queue workers' set-based pass is
-- pgstore's (queue_apply.go). This drops the PL/pgSQL functions that wrote
-- items, maintained their indexes, queued them and recorded their stream
-- changes inside the database, the PL/pgSQL queue pass, and the copy of the
-- indexing rules that index_row_sql replaces. It also drops the earlier
-- signatures the code package used to drop on every install. Migrations
-- run before the code package is installed (pgstore.Migrate), which then
-- creates the functions that remain, among them those dropped here only to
-- change their result columns (item_write_sql, queue_table_def).

-- The item functions.
DROP FUNCTION IF EXISTS dynamopg.item_lock_def(jsonb, jsonb);
DROP FUNCTION IF EXISTS dynamopg.item_lock(bigint, jsonb, bigint);
DROP FUNCTION IF EXISTS dynamopg.item_insert_def(jsonb, jsonb, int);
DROP FUNCTION IF EXISTS dynamopg.item_insert(bigint, jsonb, int);
DROP FUNCTION IF EXISTS dynamopg.item_replace_def(jsonb, jsonb, int);
DROP FUNCTION IF EXISTS dynamopg.item_replace(bigint, jsonb, int);
DROP FUNCTION IF EXISTS dynamopg.item_delete_def(jsonb, jsonb, boolean);
DROP FUNCTION IF EXISTS dynamopg.item_delete(bigint, jsonb, boolean);
DROP FUNCTION IF EXISTS dynamopg.item_put(bigint, jsonb, int, bigint);
DROP FUNCTION IF EXISTS dynamopg.item_remove(bigint, jsonb, bigint);
DROP FUNCTION IF EXISTS dynamopg.index_rows_write(jsonb, jsonb, jsonb, boolean, boolean);
DROP FUNCTION IF EXISTS dynamopg.queue_enqueue(jsonb, jsonb);
DROP FUNCTION IF EXISTS dynamopg.stream_write(jsonb, jsonb, jsonb, boolean);
DROP FUNCTION IF EXISTS dynamopg.stream_spec(jsonb);
DROP FUNCTION IF EXISTS dynamopg.stream_enabled(jsonb);
-- item_write_sql gained record_sql, put_stream_sql and remove_stream_sql.
DROP FUNCTION IF EXISTS dynamopg.item_write_sql(jsonb);

-- The PL/pgSQL queue pass.
DROP FUNCTION IF EXISTS dynamopg.queue_run(text);
DROP FUNCTION IF EXISTS dynamopg.queue_apply_many(bigint, jsonb[]);

-- The indexing rules' second copy.
DROP FUNCTION IF EXISTS dynamopg.index_indexable(jsonb, jsonb);
DROP FUNCTION IF EXISTS dynamopg.index_project(jsonb, jsonb, jsonb);
DROP FUNCTION IF EXISTS dynamopg.index_project_attrs(jsonb, jsonb, jsonb);

-- Earlier signatures, dropped by the code package on every install until
-- now: table_def gained p_version; index_rows_write gained p_async (the
-- code package now creates a 4-argument one again, with p_async in place
-- of p_fresh); item_delete gained p_ttl; item_lock, item_put and
-- item_remove gained p_version; queue_claim gained p_low; queue_table_def
-- returned the catalog version too; build_write_many became
-- build_write_page.
DROP FUNCTION IF EXISTS dynamopg.table_def(bigint, boolean);
DROP FUNCTION IF EXISTS dynamopg.index_rows_write(jsonb, jsonb, jsonb, boolean);
DROP FUNCTION IF EXISTS dynamopg.item_delete(bigint, jsonb);
DROP FUNCTION IF EXISTS dynamopg.item_lock(bigint, jsonb);
DROP FUNCTION IF EXISTS dynamopg.item_put(bigint, jsonb, int);
DROP FUNCTION IF EXISTS dynamopg.item_remove(bigint, jsonb);
DROP FUNCTION IF EXISTS dynamopg.queue_claim(text, int, int);
DROP FUNCTION IF EXISTS dynamopg.queue_table_def(bigint);
DROP FUNCTION IF EXISTS dynamopg.build_write_many(jsonb, jsonb, jsonb[]);

---- create above / drop below ----

-- Nothing to undo: the functions dropped above belong to earlier code
-- packages, which recreate them when they are installed.
