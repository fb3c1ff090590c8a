-- Query's floor: the 10 rows of one partition (q000…q199), in order.
\set p random(0, 199)
SELECT item FROM t WHERE pk = 'q' || lpad(:p::text, 3, '0') ORDER BY sk;
