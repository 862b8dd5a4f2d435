create table items (
  id bigint primary key,
  name text not null
);

select id, name from items where id = 1;
