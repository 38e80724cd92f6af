{{ config(materialized='view') }}
-- The WHERE on the right side keeps no padded row: the LEFT JOIN is an inner join
-- (sparkfold: EliminateOuterJoin)
select c.id, c.name, o.order_id, o.amount
from {{ ref('customers') }} c
left join {{ ref('orders') }} o on o.customer_id = c.id
where o.amount > 10
