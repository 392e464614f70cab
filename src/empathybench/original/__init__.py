"""The original benchmark's files: its item lists run as they are, its tester's results
imported as run folders (so published numbers can be re-judged beside ours)."""
