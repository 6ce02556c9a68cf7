"""Turns on a shared device (gpu_kernels/turns.py): a job holds its device's turn from take_turn to
end_turn, and waits while another job holds it. The device's own part (its kernels finished, its
pool's free blocks handed back) is left out here: the GPU tests run it."""
import threading
import time

import pytest

from gpu_kernels import turns
from gpu_kernels.device import open_lock, try_lock


@pytest.fixture
def turn_file(tmp_path, monkeypatch):
    monkeypatch.setattr(turns, "_settle", lambda free=True: 0)
    monkeypatch.setattr(turns, "_free_blocks", lambda: None)
    monkeypatch.setattr(turns, "_turn", {"handle": None, "held": False})
    return str(tmp_path / "gpu_kernels-0000_00_00_0.turn.lock")


def free(path) -> bool:
    """Whether another job could take the turn now."""
    other = try_lock(path)
    if other is None:
        return False
    other.close()
    return True


def test_a_job_holds_the_turn_from_take_turn_to_end_turn(turn_file):
    turns.share_device(open_lock(turn_file))
    assert free(turn_file)  # bound, inputs still being read: not yet its turn
    turns.take_turn()
    turns.take_turn()  # taken once
    assert not free(turn_file)
    turns.end_turn()
    assert free(turn_file)
    turns.end_turn()


def test_a_job_waits_for_the_turn_another_job_holds(turn_file):
    other = try_lock(turn_file)
    turns.share_device(open_lock(turn_file))
    waiter = threading.Thread(target=turns.take_turn)
    waiter.start()
    time.sleep(0.3)
    assert waiter.is_alive()  # the other job's kernels first
    other.close()
    waiter.join(timeout=5)
    assert not waiter.is_alive() and not free(turn_file)
    turns.end_turn()


def test_a_job_alone_on_its_device_takes_no_turn(turn_file):
    turns.take_turn()
    assert free(turn_file)
    turns.end_turn()


def test_a_many_genomes_job_takes_a_turn_a_pair(turn_file):
    """end_turn(last=False) hands the device on and keeps the job's lock file, so it takes it again
    for its next pair; the last end_turn closes it."""
    turns.share_device(open_lock(turn_file))
    for _ in range(3):
        turns.take_turn()
        assert not free(turn_file)
        turns.end_turn(last=False)
        assert free(turn_file) and turns._turn["handle"] is not None
    turns.end_turn()
    assert turns._turn["handle"] is None


def test_a_long_host_stage_hands_the_turn_on_until_the_next_device_step(turn_file):
    """host_stage: the next job's kernels run while this one's chains come to the host and its backbone
    round runs there, and until this one's next device step takes the turn again (the host's work
    between them outside the turn too); a short stage (a small pair's) and a job alone on its device
    keep what they hold."""
    turns.share_device(open_lock(turn_file))
    turns.take_turn()
    with turns.host_stage():
        assert free(turn_file) and not turns._turn["held"]
    assert free(turn_file) and not turns._turn["held"]
    turns.take_turn()
    assert not free(turn_file) and turns._turn["held"]
    with turns.host_stage(long=False):
        assert not free(turn_file)
    turns.end_turn()
    with turns.host_stage():  # no turn held: nothing to hand on
        assert free(turn_file)
    assert free(turn_file)


def test_a_part_places_its_chains_in_the_turn_after_its_backbone_round_outside_it(turn_file, monkeypatch, tmp_path):
    """pipeline.homology on a shared device: the backbone's first round runs with the turn handed on
    (chains.host_stage), the placement takes it back before its first kernel (place_and_align)."""
    from generate import duplicated_genomes
    from gpu_kernels import backbone as backbone_module, chains, pipeline
    from gpu_kernels.backend import NumpyBackend
    from gpu_kernels.fasta import load_fasta
    from gpu_kernels.params import Params

    seen = {}
    monkeypatch.setattr(chains, "HAND_ON_CHAINS", 0)

    def watched(name, work):
        def run(*args, **kwargs):
            seen[name] = (turns._turn["held"], free(turn_file))
            return work(*args, **kwargs)
        return run

    monkeypatch.setattr(chains, "backbone", watched("backbone", backbone_module.backbone))
    backend = NumpyBackend()
    monkeypatch.setattr(backend, "refine_blocks", watched("placement", backend.refine_blocks), raising=False)
    query, reference = duplicated_genomes(tmp_path, 1)
    turns.share_device(open_lock(turn_file))
    turns.take_turn()
    part = pipeline.homology(load_fasta(query), load_fasta(reference), Params(), backend, pieces=False)
    assert part.alignments["chain"].size > 0
    assert seen == {"backbone": (False, True), "placement": (True, False)}
    turns.end_turn()
