"""The votes file: one vote per rater and question, even when threads race for it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.survey.records import Vote
from empathybench.survey.store import DuplicateVoteError, VoteStore


def _vote(rater: str = "ann", question: str = "q1", survey: str = "s1", most: str = "A") -> Vote:
    return Vote(
        survey_id=survey,
        rater_id=rater,
        question_id=question,
        most=most,
        least="B" if most != "B" else "C",
        reason="",
        voted_at="2025-01-01T00:00:00+00:00",
    )


def test_votes_come_back_in_insertion_order_per_survey(tmp_path: Path) -> None:
    with VoteStore(tmp_path / "votes.sqlite") as store:
        added = [_vote("zed", "q2"), _vote("ann", "q1"), _vote("bob", "q1"), _vote("ann", "q2")]
        for vote in added:
            store.add(vote)
        store.add(_vote("ann", "q1", survey="other"))
        assert store.votes("s1") == added
        assert store.answered("s1", "ann") == {"q1", "q2"}
        assert store.answered("s1", "nobody") == set()
        assert store.count("s1") == 4 and store.count() == 5
    with VoteStore(tmp_path / "votes.sqlite") as reopened:
        assert reopened.votes("s1") == added


def test_a_second_vote_on_the_same_question_is_refused_and_the_first_stands(tmp_path: Path) -> None:
    with VoteStore(tmp_path / "votes.sqlite") as store:
        store.add(_vote(most="A"))
        with pytest.raises(DuplicateVoteError, match="rater ann already voted on question q1"):
            store.add(_vote(most="C"))
        assert [vote.most for vote in store.votes("s1")] == ["A"]


def _race(adders: list[VoteStore], vote: Vote) -> tuple[int, int]:
    """Every adder tries to store ``vote`` at the same moment; (stored, refused)."""
    barrier = threading.Barrier(len(adders))
    outcomes: list[str] = []
    lock = threading.Lock()

    def cast(store: VoteStore) -> None:
        barrier.wait()
        try:
            store.add(vote)
            outcome = "stored"
        except DuplicateVoteError:
            outcome = "refused"
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=cast, args=(store,)) for store in adders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes.count("stored"), outcomes.count("refused")


def test_threads_sharing_one_store_racing_on_one_vote_store_it_once(tmp_path: Path) -> None:
    with VoteStore(tmp_path / "votes.sqlite") as store:
        assert _race([store] * 8, _vote()) == (1, 7)
        assert len(store.votes("s1")) == 1


def test_separate_connections_racing_on_one_vote_store_it_once(tmp_path: Path) -> None:
    stores = [VoteStore(tmp_path / "votes.sqlite") for _ in range(4)]
    try:
        assert _race(stores, _vote()) == (1, 3)
        assert len(stores[0].votes("s1")) == 1
    finally:
        for store in stores:
            store.close()


def test_threads_voting_on_different_questions_all_land(tmp_path: Path) -> None:
    with VoteStore(tmp_path / "votes.sqlite") as store:
        threads = [
            threading.Thread(target=store.add, args=(_vote("ann", f"q{i}"),)) for i in range(20)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert store.answered("s1", "ann") == {f"q{i}" for i in range(20)}


def test_a_file_that_is_not_a_database_is_one_user_error(tmp_path: Path) -> None:
    path = tmp_path / "votes.sqlite"
    path.write_text("these are not votes\n" * 100)
    with pytest.raises(UserError, match="not a usable votes database"):
        VoteStore(path)
    with pytest.raises(UserError, match="no such directory"):
        VoteStore(tmp_path / "missing" / "votes.sqlite")


def test_a_closed_store_cannot_be_used(tmp_path: Path) -> None:
    store = VoteStore(tmp_path / "votes.sqlite")
    store.close()
    store.close()
    with pytest.raises(ValueError, match="closed"):
        store.add(_vote())
