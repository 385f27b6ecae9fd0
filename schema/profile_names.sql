-- profile_names.sql - run by the importer after the function profiler's rows
-- (import_profile.c): the kernel prints each function name with "%-30.30s", so a
-- longer name reaches us cut to 30 characters. Where exactly one kallsyms symbol of
-- the recording starts with those 30 characters, the row gets that full name; where
-- several do, the cut name stays (it is what the kernel showed).
CREATE TEMP TABLE profile_cut AS
SELECT DISTINCT func FROM function_profile WHERE length(func) = 30;
CREATE TEMP TABLE profile_full AS
SELECT c.func, min(s.name) AS name
FROM profile_cut c JOIN symbols s ON substr(s.name, 1, 30) = c.func
GROUP BY c.func HAVING count(DISTINCT s.name) = 1;
UPDATE function_profile SET func = (SELECT name FROM profile_full f WHERE f.func = function_profile.func)
WHERE func IN (SELECT func FROM profile_full);
DROP TABLE profile_cut;
DROP TABLE profile_full;
