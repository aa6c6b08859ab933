"""The tiny model, the transformers backend, and resuming a killed generation job."""

from __future__ import annotations

import pytest

from clineval.inference.transformers_backend import TransformersBackend
from clineval.provenance.hashing import sha256_obj

#: A prompt SmolLM2 answers with a list that repeats until max_tokens, and one it answers briefly.
LOOPING = ("List the diagnoses of a patient admitted with diabetic ketoacidosis, one per line, "
           "numbered.", "Say hello.")
SAMPLING = {"temperature": 0.0, "top_p": 1.0, "max_tokens": 6, "seed": 0}
ENGINE = {"device": "cpu", "dtype": "float32", "batch_size": 2}


@pytest.mark.slow
def test_a_loop_ends_the_output_where_it_began_to_repeat(smollm2_dir):
    """With ``stop_loop``, SmolLM2's greedy list that repeats itself ends early (``finish_reason:
    loop``) and is the start of the output generated without it, which only repeats further
    until ``max_tokens``; an output that does not loop is the same either way."""
    requests = [{"id": str(i), "messages": [{"role": "user", "content": text}],
                 "request_sha": sha256_obj(text)} for i, text in enumerate(LOOPING)]
    sampling = {**SAMPLING, "max_tokens": 128}
    plain = TransformersBackend(smollm2_dir, sampling, ENGINE).generate(requests)
    stopped = TransformersBackend(smollm2_dir, {**sampling, "stop_loop": 32}, ENGINE)
    assert stopped.effective_settings()["stop_loop"] == 32
    looped = stopped.generate(requests)
    assert [g.finish_reason for g in plain] == ["length", "stop"]
    assert [g.finish_reason for g in looped] == ["loop", "stop"]
    assert looped[0].completion_tokens < plain[0].completion_tokens
    assert plain[0].output.startswith(looped[0].output)
    assert looped[1] == plain[1]
