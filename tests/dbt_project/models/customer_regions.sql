-- `country = null` is never true (the filter is `id > 2`), and a CASE branch on a NULL
-- condition is never taken (sparkfold: NullPropagation, BooleanSimplification, ...)
select
  id,
  name,
  case when cast(null as boolean) then 'never' when country is null then 'unknown' else country end as region
from {{ ref('customers') }}
where country = null or id > 2
