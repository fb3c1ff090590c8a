-- The per-table storage as the hand-versioned code (schema version 5,
-- ddl.go) created it, for table id 1 and index id 1: test data for
-- TestOpenVersion5File, which builds such a file.
CREATE TABLE t_1 (
    hk   INTEGER NOT NULL,
    pk   BLOB    NOT NULL,
    sk   BLOB    NOT NULL,
    item BLOB    NOT NULL,
    size INTEGER NOT NULL,
    PRIMARY KEY (pk, sk)
) WITHOUT ROWID;
-- Scan order: hash, then key.
CREATE INDEX t_1_scan ON t_1 (hk, pk, sk);

CREATE TABLE i_1 (
    hk   INTEGER NOT NULL,
    ipk  BLOB    NOT NULL,
    isk  BLOB    NOT NULL,
    pk   BLOB    NOT NULL,
    sk   BLOB    NOT NULL,
    item BLOB    NOT NULL,
    PRIMARY KEY (ipk, isk, pk, sk)
) WITHOUT ROWID;
-- Maintenance: find an item's row by its base key.
CREATE INDEX i_1_base ON i_1 (pk, sk);
-- Scan order: hash of the index partition key, then the full key.
CREATE INDEX i_1_scan ON i_1 (hk, ipk, isk, pk, sk);
