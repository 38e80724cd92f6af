-- The source data, with NULLs (built from VALUES: dbt-spark's seeds load a NULL string as 'None')
select * from values
  (1, 'ann', 'FR'),
  (2, 'bob', null),
  (3, null, 'DE'),
  (4, 'dan', 'FR'),
  (5, 'eve', null)
as t(id, name, country)
