-- Says hello.
CREATE TABLE greeters (
    id INTEGER PRIMARY KEY,
    name VARCHAR(64) NOT NULL,
    count INTEGER DEFAULT 0
);

INSERT INTO greeters (id, name) VALUES (1, 'world');

SELECT g.name, COUNT(*) AS n
FROM greeters AS g
LEFT JOIN visits v ON v.greeter_id = g.id
WHERE g.count > 0 AND g.name LIKE 'w%'
GROUP BY g.name
ORDER BY n DESC;

UPDATE greeters SET count = count + 1 WHERE id = 1;
