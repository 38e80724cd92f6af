-- Two checks in one file: statements are optimized one by one.
SELECT count(*) AS unknown_status FROM orders WHERE status IS NULL AND id IS NULL;

SELECT DISTINCT status FROM orders WHERE NOT (status IN ('open', 'closed', NULL));
