-- BatchWriteItem's and TransactWriteItems' floor: @N@ upserts of fresh keys
-- in one pipeline, one round trip and one implicit transaction. The
-- statement between the repeat and end markers is written once per item,
-- with the item's number in its variables' names (pgbench.go: pgbBatch).
\startpipeline
-- repeat
\set r@I@ random(1, 9000000000000000)
\set hk@I@ random(1, 4000000000000000000)
INSERT INTO t (hk, pk, sk, item, size)
VALUES (:hk@I@, 'n' || :r@I@::text, 's',
        ('{"pk":{"S":"n' || :r@I@::text || '"},"sk":{"S":"s"},"g":{"S":"g"},"g2":{"S":"g"},"n":{"N":"1"},"data":{"S":"' || :payload::text || '"}}')::jsonb,
        1100)
    ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item, size = excluded.size;
-- end
\endpipeline
