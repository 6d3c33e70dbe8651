-- The sql_sample world's database: a small lending library. Built by build.py into
-- database/library/library.sqlite; edit this file, then run `python -m worlds.sql.sample.build`.
CREATE TABLE author (
    author_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    country TEXT NOT NULL,
    birth_year INTEGER
);
CREATE TABLE book (
    book_id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    author_id INTEGER NOT NULL REFERENCES author (author_id),
    genre TEXT NOT NULL,
    published INTEGER NOT NULL,
    pages INTEGER NOT NULL,
    price REAL NOT NULL
);
CREATE TABLE member (
    member_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    joined TEXT NOT NULL
);
CREATE TABLE loan (
    loan_id INTEGER PRIMARY KEY,
    book_id INTEGER NOT NULL REFERENCES book (book_id),
    member_id INTEGER NOT NULL REFERENCES member (member_id),
    loan_date TEXT NOT NULL,
    returned INTEGER NOT NULL
);
INSERT INTO author VALUES
    (1, 'Chinua Achebe', 'Nigeria', 1930),
    (2, 'Ursula K. Le Guin', 'United States', 1929),
    (3, 'Haruki Murakami', 'Japan', 1949),
    (4, 'Chimamanda Ngozi Adichie', 'Nigeria', 1977),
    (5, 'Italo Calvino', 'Italy', 1923),
    (6, 'Octavia E. Butler', 'United States', 1947),
    (7, 'Jorge Luis Borges', 'Argentina', 1899);
INSERT INTO book VALUES
    (1, 'Things Fall Apart', 1, 'novel', 1958, 209, 12.5),
    (2, 'Arrow of God', 1, 'novel', 1964, 287, 14.0),
    (3, 'A Wizard of Earthsea', 2, 'fantasy', 1968, 183, 9.99),
    (4, 'The Left Hand of Darkness', 2, 'science fiction', 1969, 304, 15.0),
    (5, 'The Dispossessed', 2, 'science fiction', 1974, 387, 16.5),
    (6, 'Norwegian Wood', 3, 'novel', 1987, 296, 13.0),
    (7, 'Kafka on the Shore', 3, 'novel', 2002, 505, 18.0),
    (8, 'Half of a Yellow Sun', 4, 'novel', 2006, 433, 17.25),
    (9, 'Americanah', 4, 'novel', 2013, 588, 19.0),
    (10, 'Invisible Cities', 5, 'novel', 1972, 165, 11.0),
    (11, 'Kindred', 6, 'science fiction', 1979, 264, 12.0),
    (12, 'Parable of the Sower', 6, 'science fiction', 1993, 345, 14.5),
    (13, 'Ficciones', 7, 'short stories', 1944, 174, 10.5),
    (14, 'The Aleph', 7, 'short stories', 1949, 210, 11.5);
INSERT INTO member VALUES
    (1, 'Amara Okafor', 'Lagos', '2019-03-14'),
    (2, 'Ben Carter', 'Boston', '2020-07-01'),
    (3, 'Chiara Rossi', 'Turin', '2018-11-23'),
    (4, 'Daichi Sato', 'Osaka', '2021-01-09'),
    (5, 'Elena Duarte', 'Buenos Aires', '2022-05-30'),
    (6, 'Femi Adeyemi', 'Lagos', '2023-02-17'),
    (7, 'Greta Lind', 'Oslo', '2024-08-01');
INSERT INTO loan VALUES
    (1, 1, 1, '2024-01-05', 1),
    (2, 3, 2, '2024-01-12', 1),
    (3, 6, 4, '2024-02-02', 1),
    (4, 9, 1, '2024-02-20', 0),
    (5, 10, 3, '2024-03-01', 1),
    (6, 13, 5, '2024-03-15', 1),
    (7, 4, 2, '2024-04-02', 0),
    (8, 7, 4, '2024-04-18', 1),
    (9, 1, 6, '2024-05-06', 1),
    (10, 12, 2, '2024-05-21', 0),
    (11, 14, 5, '2024-06-03', 0),
    (12, 8, 1, '2024-06-11', 1);
