-- customers.id has a not_null test: count(id) counts the rows (sparkfold dbt reads the
-- test from manifest.json; a session's schema does not say it)
select count(id) as customers, count(name) as named
from {{ ref('customers') }}
