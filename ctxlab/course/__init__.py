"""What the course needs beyond the library: the deterministic offline model
(:mod:`.offline`), the IT-support agent and its tools (:mod:`.agent`), the backend choice
(:mod:`.backends`), live runs and their costs (:mod:`.runs`, :mod:`.costs`), corpora
(:mod:`.corpora`), analyses (:mod:`.analysis`) and the deliberately wrong code the lessons
show (:mod:`.pitfalls`). The library never imports this package.
"""
