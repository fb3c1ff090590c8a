-- GetItem's floor: one row by its key (k0000…k0999, preloaded).
\set k random(0, 999)
SELECT item FROM t WHERE pk = 'k' || lpad(:k::text, 4, '0') AND sk = 's';
