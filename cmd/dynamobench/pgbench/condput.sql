-- Conditional PutItem's floor (attribute_not_exists on a fresh key): an
-- insert that does nothing when the key exists.
\set r random(1, 9000000000000000)
\set hk random(1, 4000000000000000000)
INSERT INTO t (hk, pk, sk, item, size)
VALUES (:hk, 'n' || :r::text, 's',
        ('{"pk":{"S":"n' || :r::text || '"},"sk":{"S":"s"},"g":{"S":"g"},"g2":{"S":"g"},"n":{"N":"1"},"data":{"S":"' || :payload::text || '"}}')::jsonb,
        1100)
    ON CONFLICT (pk, sk) DO NOTHING;
