-- Customers with an order over 100, and what they spent.
SELECT c.name, sum(o.amount) AS total
FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
WHERE o.amount > 100
GROUP BY c.name
ORDER BY total DESC
LIMIT 10
