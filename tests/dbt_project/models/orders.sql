select * from values
  (10, 1, 25.50),
  (11, 1, null),
  (12, 2, 7.00),
  (13, 3, 120.00),
  (14, 9, 3.25),
  (15, 4, 12.00)
as t(order_id, customer_id, amount)
