-- refs another model; count(x) over a column that is never NULL (the WHERE rejects NULL
-- order_ids, coalesce() gives no NULL) counts the rows: count(1)
with per_customer as (
  select id, order_id, coalesce(amount, 0) as amount
  from {{ ref('big_orders') }}
  where order_id is not null
)
select id, count(order_id) as orders, count(amount) as priced, sum(amount) as total
from per_customer
group by id
