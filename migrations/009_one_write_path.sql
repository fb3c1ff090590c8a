-- 009_one_write_path: one write path per item write on PostgreSQL. The
-- indexing rules (which items an index holds, and what of them) have one
-- definition, dynamopg.index_row_sql (sql/functions/catalog.sql), from which
-- every statement that writes index rows is built; this drops the copies it
-- replaces. Migrations run before the code package is installed
-- (pgstore.Migrate), which then creates the functions that remain.

-- The indexing rules' second copy.
DROP FUNCTION IF EXISTS dynamopg.index_indexable(jsonb, jsonb);
DROP FUNCTION IF EXISTS dynamopg.index_project(jsonb, jsonb, jsonb);
DROP FUNCTION IF EXISTS dynamopg.index_project_attrs(jsonb, jsonb, jsonb);

---- create above / drop below ----

-- Nothing to undo: the functions dropped above belong to earlier code
-- packages, which recreate them when they are installed.
