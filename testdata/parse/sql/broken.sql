SELECT name, FROM greeters WHERE;
INSERT INTO greeters (id VALUES (1;
