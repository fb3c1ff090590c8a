-- UpdateItem SET n = :n's floor: one attribute of a preloaded row set in
-- place.
\set k random(0, 999)
\set v random(0, 999999)
UPDATE t SET item = jsonb_set(item, '{n}', jsonb_build_object('N', :v::text))
 WHERE pk = 'k' || lpad(:k::text, 4, '0') AND sk = 's';
