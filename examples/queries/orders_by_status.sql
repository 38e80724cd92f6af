-- Orders and revenue per status.
SELECT status, count(id) AS orders, sum(amount) AS revenue
FROM orders
WHERE amount > 0
GROUP BY status
