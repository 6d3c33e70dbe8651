"""``squall view``: one offline HTML app over a folder of runs, served on 127.0.0.1 or written as static files."""
