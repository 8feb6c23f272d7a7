"""A branch as one document to share: what it holds (`transcript`), rendered as self-contained HTML
(`html`) or Markdown (`markdown`), checked for credentials first (`credentials`), and written by
`workbench export` and `/export` (`branch_export`)."""
