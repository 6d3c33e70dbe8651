-- A BIRD-shaped test database (after BIRD's california_schools, written for squall's tests): three tables
-- joined by a school code, column names with spaces and brackets as BIRD's are. tests/worlds/sql/test_sql_bird.py
-- builds it into <db-dir>/school_meals/school_meals.sqlite beside database_description/.
CREATE TABLE schools (
    CDSCode TEXT PRIMARY KEY,
    School TEXT,
    County TEXT,
    District TEXT,
    Magnet INTEGER,
    OpenDate TEXT
);
CREATE TABLE frpm (
    CDSCode TEXT PRIMARY KEY REFERENCES schools (CDSCode),
    `County Name` TEXT,
    `Enrollment (K-12)` REAL,
    `Free Meal Count (K-12)` REAL,
    `Charter School (Y/N)` INTEGER
);
CREATE TABLE satscores (
    cds TEXT PRIMARY KEY REFERENCES schools (CDSCode),
    sname TEXT,
    NumTstTakr INTEGER,
    AvgScrMath INTEGER
);
INSERT INTO schools VALUES
    ('01100170109835', 'FAME Public Charter', 'Alameda', 'Alameda County Office of Education', 0, '2005-08-29'),
    ('01100170112607', 'Envision Academy', 'Alameda', 'Alameda County Office of Education', 0, '2006-08-28'),
    ('01316170131763', 'California School for the Deaf', 'Alameda', 'California School for the Deaf', 0, '1980-07-01'),
    ('04614240000000', 'Chico Senior High', 'Butte', 'Chico Unified', 0, '1980-07-01'),
    ('04614240430306', 'Pleasant Valley High', 'Butte', 'Chico Unified', 1, '1997-08-25'),
    ('19647330100000', 'Venice High', 'Los Angeles', 'Los Angeles Unified', 1, '1980-07-01'),
    ('19647330101832', 'Marshall High', 'Los Angeles', 'Los Angeles Unified', 1, '1980-07-01'),
    ('19647330106435', 'Fairfax Senior High', 'Los Angeles', 'Los Angeles Unified', 0, '1980-07-01'),
    ('37683380000000', 'Grossmont High', 'San Diego', 'Grossmont Union High', 0, '1980-07-01'),
    ('37683380111740', 'Helix Charter High', 'San Diego', 'Grossmont Union High', 0, '1999-07-01');
INSERT INTO frpm VALUES
    ('01100170109835', 'Alameda', 1087.0, 565.0, 1),
    ('01100170112607', 'Alameda', 395.0, 186.0, 1),
    ('01316170131763', 'Alameda', 414.0, 292.0, 0),
    ('04614240000000', 'Butte', 1943.0, 615.0, 0),
    ('04614240430306', 'Butte', 2088.0, 402.0, 0),
    ('19647330100000', 'Los Angeles', 2491.0, 1652.0, 0),
    ('19647330101832', 'Los Angeles', 2765.0, 1821.0, 0),
    ('19647330106435', 'Los Angeles', 2240.0, 1720.0, 0),
    ('37683380000000', 'San Diego', 2260.0, 904.0, 0),
    ('37683380111740', 'San Diego', 2479.0, 1010.0, 1);
INSERT INTO satscores VALUES
    ('01100170109835', 'FAME Public Charter', 98, 418),
    ('01100170112607', 'Envision Academy', 44, 402),
    ('04614240000000', 'Chico Senior High', 361, 521),
    ('04614240430306', 'Pleasant Valley High', 408, 532),
    ('19647330100000', 'Venice High', 402, 470),
    ('19647330101832', 'Marshall High', 478, 492),
    ('19647330106435', 'Fairfax Senior High', 305, 445),
    ('37683380000000', 'Grossmont High', 371, 503),
    ('37683380111740', 'Helix Charter High', 390, 498);
