"""The grading sandbox: the child process (worker), its kernel confinement (confine), what it
may read (runtime), and the grader's side (host). Kept free of imports: the child loads it."""
