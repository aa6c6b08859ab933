"""The grid's self-contained HTML report: leaderboard, tables and figures in one offline file.

:mod:`markdown` reads back the tables' Markdown, :mod:`page` renders the page, :mod:`step` is
the workflow step (``clineval step report``) that writes it with its provenance record.
"""
