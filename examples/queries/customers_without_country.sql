SELECT id, name FROM customers WHERE country = NULL
