-- PutItem on a table with 2 GSIs: the item and its two covering index rows
-- in one pipeline, one round trip and one implicit transaction.
\set r random(1, 9000000000000000)
\set hk random(1, 4000000000000000000)
\set g random(0, 199)
\set g2 random(0, 199)
\startpipeline
INSERT INTO t2 (hk, pk, sk, item, size)
VALUES (:hk, 'n' || :r::text, 's',
        ('{"pk":{"S":"n' || :r::text || '"},"sk":{"S":"s"},"g":{"S":"g' || lpad(:g::text, 3, '0') || '"},"g2":{"S":"g' || lpad(:g2::text, 3, '0') || '"},"n":{"N":"1"},"data":{"S":"' || :payload::text || '"}}')::jsonb,
        1100)
    ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item, size = excluded.size;
INSERT INTO x2a (hk, g, sk, pk, item)
VALUES (:hk, 'g' || lpad(:g::text, 3, '0'), 's', 'n' || :r::text,
        ('{"pk":{"S":"n' || :r::text || '"},"sk":{"S":"s"},"g":{"S":"g' || lpad(:g::text, 3, '0') || '"},"g2":{"S":"g' || lpad(:g2::text, 3, '0') || '"},"n":{"N":"1"},"data":{"S":"' || :payload::text || '"}}')::jsonb)
    ON CONFLICT (g, sk, pk) DO UPDATE SET item = excluded.item;
INSERT INTO x2b (hk, g, sk, pk, item)
VALUES (:hk, 'g' || lpad(:g2::text, 3, '0'), 's', 'n' || :r::text,
        ('{"pk":{"S":"n' || :r::text || '"},"sk":{"S":"s"},"g":{"S":"g' || lpad(:g::text, 3, '0') || '"},"g2":{"S":"g' || lpad(:g2::text, 3, '0') || '"},"n":{"N":"1"},"data":{"S":"' || :payload::text || '"}}')::jsonb)
    ON CONFLICT (g, sk, pk) DO UPDATE SET item = excluded.item;
\endpipeline
