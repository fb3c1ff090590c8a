-- Query on a GSI's floor: the 10 rows of one key (g000…g199) of the
-- covering index table, in order.
\set g random(0, 199)
SELECT item FROM x1 WHERE g = 'g' || lpad(:g::text, 3, '0') ORDER BY sk, pk;
