"""The tiny model, the transformers backend, and resuming a killed generation job."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clineval.inference import tiny_model
from clineval.inference.transformers_backend import LoopStop, TransformersBackend
from clineval.io import ordinary_mode, read_jsonl, write_json, write_jsonl
from clineval.provenance.hashing import sha256_obj
from clineval.workflow.steps.generation import CellJob, Shard, batches, generate_cells, merge_shards

BUILD = {"architecture": "llama", "hidden_size": 32, "intermediate_size": 64,
         "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
         "max_position_embeddings": 2048, "seed": 0}
#: A prompt SmolLM2 answers with a list that repeats until max_tokens, and one it answers briefly.
LOOPING = ("List the diagnoses of a patient admitted with diabetic ketoacidosis, one per line, "
           "numbered.", "Say hello.")
SAMPLING = {"temperature": 0.0, "top_p": 1.0, "max_tokens": 6, "seed": 0}
ENGINE = {"device": "cpu", "dtype": "float32", "batch_size": 2}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("models") / "tiny"
    tiny_model.build(BUILD, out)
    return out


def _requests(n: int) -> list[dict]:
    records = []
    for i in range(n):
        messages = [{"role": "system", "content": "Answer in JSON."},
                    {"role": "user", "content": f"Question {i}: what is {i} + {i}?"}]
        records.append({"id": str(i), "messages": messages, "request_sha": sha256_obj(messages)})
    return records


def test_the_tiny_models_files_are_ordinary_files(model_dir):
    """Every file of the built folder has the mode of a new file (0644 under umask 022):
    safetensors writes 0600, which hid results/models/tiny_llama/model.safetensors."""
    modes = {p.name: p.stat().st_mode & 0o777 for p in model_dir.iterdir()}
    assert "model.safetensors" in modes
    assert set(modes.values()) == {ordinary_mode()}, modes


def test_tiny_model_has_a_chat_template_and_is_reproducible(model_dir, tmp_path):
    backend = TransformersBackend(model_dir, SAMPLING, ENGINE)
    prompt = backend.tokenizer.apply_chat_template(
        [{"role": "user", "content": "hi"}], tokenize=False, add_generation_prompt=True)
    assert prompt.endswith("<|start_header|>assistant<|end_header|>\n")
    first = backend.generate(_requests(3))
    assert all(g.finish_reason in ("stop", "length") for g in first)
    assert all(g.completion_tokens <= SAMPLING["max_tokens"] for g in first)
    tiny_model.build(BUILD, tmp_path / "again")
    again = TransformersBackend(tmp_path / "again", SAMPLING, ENGINE).generate(_requests(3))
    assert [g.output for g in again] == [g.output for g in first]
    assert backend.effective_settings()["do_sample"] is False


def test_batching_does_not_change_greedy_outputs(model_dir):
    one = TransformersBackend(model_dir, SAMPLING, {**ENGINE, "batch_size": 1})
    reqs = _requests(4)
    single = [one.generate([r])[0].output for r in reqs]
    batched = [g.output for g in one.generate(reqs)]
    assert single == batched


@pytest.mark.parametrize(("lengths", "size", "limit", "expected"), [
    ([100, 90, 80, 70, 60], 8, None, [(0, 5)]),             # by count only
    ([100, 90, 80, 70, 60], 2, None, [(0, 2), (2, 4), (4, 5)]),
    ([100, 90, 80, 70, 60], 8, 0.25, [(0, 3), (3, 5)]),     # 70 < 0.75 * 100 starts a batch
    ([100, 100, 100], 2, 0.0, [(0, 2), (2, 3)]),            # equal lengths never pad
    ([100, 99], 8, 0.0, [(0, 1), (1, 2)]),
    ([], 8, 0.25, []),
])
def test_batches_keep_to_the_size_and_the_padding_limit(lengths, size, limit, expected):
    spans = batches(lengths, size, limit)
    assert [(s.start, s.stop) for s in spans] == expected
    for span in spans:
        assert len(span) <= size
        if limit is not None:
            assert all(lengths[i] >= (1 - limit) * lengths[span.start] for i in span)


def test_a_padding_limit_splits_batches_and_keeps_the_outputs(model_dir, tmp_path,
                                                             monkeypatch):
    """Engine ``max_padding`` decides batches only: the cells' answers are those of batches by
    count, and a long prompt does not pad short ones."""
    reqs = _requests(3)
    reqs[0]["messages"][1]["content"] += " Explain in detail. " * 30  # about 10 times longer
    reqs_path = tmp_path / "requests.jsonl"
    write_jsonl(reqs_path, reqs)
    sizes: list[int] = []
    original = TransformersBackend.generate
    monkeypatch.setattr(TransformersBackend, "generate",
                        lambda self, batch: sizes.append(len(batch)) or original(self, batch))
    outputs, calls = {}, {}
    for limit in (1.0, 0.25):
        engine = {**ENGINE, "batch_size": 3, "max_padding": limit}
        where = tmp_path / str(limit)
        job = _job(_identity(where, model_dir, 4, engine=engine), reqs_path, where)
        generate_cells([job], model_dir)
        outputs[limit] = [g["output"] for g in read_jsonl(job.out)]
        calls[limit], sizes[:] = list(sizes), []
    assert calls == {1.0: [3], 0.25: [1, 2]}
    assert outputs[0.25] == outputs[1.0]


def _identity(tmp_path: Path, model_dir: Path, max_tokens: int, cell: str = "tiny/medcalc/cot",
              model_name: str = "tiny", engine: dict | None = None) -> Path:
    model = {"id": "t", "revision": "1", "backend": "transformers", "path": str(model_dir),
             "sampling": {**SAMPLING, "max_tokens": max_tokens}, "engine": engine or ENGINE}
    content = {"cell": cell, "benchmark": "medcalc", "model": model, "model_name": model_name,
               "credentialed": False, "requests": sha256_obj(cell)}
    path = tmp_path / f"generation-{cell.replace('/', '-')}-{max_tokens}.json"
    write_json(path, {"sha": sha256_obj(content), "identity": content})
    return path


def _job(ident: Path, requests: Path, where: Path, cache: Path | None = None) -> CellJob:
    return CellJob(ident, requests, where / "gen.jsonl", where / "gen.meta.json",
                   cache or where / "cache.jsonl")


def test_killed_generation_resumes_without_redoing_requests(model_dir, tmp_path, monkeypatch):
    reqs_path = tmp_path / "requests.jsonl"
    write_jsonl(reqs_path, _requests(5))
    ident = _identity(tmp_path, model_dir, 6)
    job = _job(ident, reqs_path, tmp_path)

    clean = _job(ident, reqs_path, tmp_path / "clean")
    generate_cells([clean], model_dir)

    calls = {"n": 0}
    real = TransformersBackend.generate

    def dies_after_one_batch(self, batch):
        calls["n"] += 1
        if calls["n"] > 1:
            raise KeyboardInterrupt("pre-empted")
        return real(self, batch)

    monkeypatch.setattr(TransformersBackend, "generate", dies_after_one_batch)
    with pytest.raises(KeyboardInterrupt):
        generate_cells([job], model_dir)
    assert not job.out.exists()
    assert len(job.cache.read_text().splitlines()) == 2  # the first batch survived

    generated = []
    monkeypatch.setattr(TransformersBackend, "generate",
                        lambda self, batch: generated.extend(r["id"] for r in batch)
                        or real(self, batch))
    generate_cells([job], model_dir)
    assert generated == ["2", "3", "4"]
    assert json.loads(job.meta.read_text())["from_cache"] == 2
    assert job.out.read_bytes() == clean.out.read_bytes()

    generated.clear()  # a changed sampling parameter never reuses an answer
    changed = _job(_identity(tmp_path, model_dir, 3), reqs_path, tmp_path, job.cache)
    generate_cells([changed], model_dir)
    assert generated == ["0", "1", "2", "3", "4"]
    assert all(r["completion_tokens"] <= 3 for r in read_jsonl(job.out))


def test_a_changed_model_never_meets_an_old_answer(model_dir, tmp_path):
    reqs_path = tmp_path / "requests.jsonl"
    write_jsonl(reqs_path, _requests(3))
    first = _job(_identity(tmp_path, model_dir, 4), reqs_path, tmp_path / "a", tmp_path / "c.jsonl")
    generate_cells([first], model_dir)
    ident = json.loads(first.identity.read_text())
    ident["identity"]["model"]["revision"] = "2"  # same weights here; another model in truth
    ident["sha"] = sha256_obj(ident["identity"])
    revised = tmp_path / "revised.json"
    write_json(revised, ident)
    second = _job(revised, reqs_path, tmp_path / "b", tmp_path / "c.jsonl")
    generate_cells([second], model_dir)
    assert json.loads(second.meta.read_text())["from_cache"] == 0
    assert json.loads(second.meta.read_text())["generated"] == 3


def _count_loads(monkeypatch) -> dict[str, int]:
    loads = {"n": 0}
    real = TransformersBackend.__init__

    def counting(self, *args, **kwargs):
        loads["n"] += 1
        real(self, *args, **kwargs)

    monkeypatch.setattr(TransformersBackend, "__init__", counting)
    return loads


def test_one_engine_load_serves_every_cell_of_the_model(model_dir, tmp_path, monkeypatch):
    loads = _count_loads(monkeypatch)
    reqs_path = tmp_path / "requests.jsonl"
    write_jsonl(reqs_path, _requests(3))
    jobs = [_job(_identity(tmp_path, model_dir, 4, f"tiny/medcalc/{mode}"), reqs_path,
                 tmp_path / mode) for mode in ("zero_shot", "cot", "one_shot")]
    summary = generate_cells(jobs, model_dir)
    assert loads["n"] == summary["engine_loads"] == 1
    assert [json.loads(j.meta.read_text())["engine_loads"] for j in jobs] == [1, 0, 0]
    assert all(len(read_jsonl(j.out)) == 3 for j in jobs)

    again = generate_cells(jobs, model_dir)  # everything cached: the engine never loads
    assert loads["n"] == 1 and again["engine_loads"] == 0


def test_a_job_serves_one_model(model_dir, tmp_path):
    reqs_path = tmp_path / "requests.jsonl"
    write_jsonl(reqs_path, _requests(1))
    jobs = [_job(_identity(tmp_path, model_dir, 4, f"{m}/medcalc/cot", m), reqs_path, tmp_path / m)
            for m in ("a", "b")]
    with pytest.raises(ValueError, match="one generation job serves one model"):
        generate_cells(jobs, model_dir)


def test_data_parallel_shards_merge_into_the_unsharded_artifact(model_dir, tmp_path):
    reqs_path = tmp_path / "requests.jsonl"
    write_jsonl(reqs_path, _requests(5))
    ident = _identity(tmp_path, model_dir, 4)
    whole = _job(ident, reqs_path, tmp_path / "whole")
    generate_cells([whole], model_dir)
    parts = []
    for k in (1, 2):
        part = _job(ident, reqs_path, tmp_path / f"shard{k}", tmp_path / f"c/cell.shard-{k}.jsonl")
        summary = generate_cells([part], model_dir, Shard.parse(f"{k}/2"))
        assert summary["shard"] == f"{k}/2"
        parts.append((part.out, part.meta))
    assert [len(read_jsonl(p)) for p, _ in parts] == [3, 2]
    out, meta = tmp_path / "merged.jsonl", tmp_path / "merged.meta.json"
    merge_shards(reqs_path, parts, out, meta)
    assert out.read_bytes() == whole.out.read_bytes()
    assert json.loads(meta.read_text())["requests"] == 5
    with pytest.raises(ValueError, match="K must be between 1 and N"):
        Shard.parse("3/2")


def test_a_baselines_answers_are_cached_per_example_not_per_prompt(tmp_path):
    from clineval.workflow.steps.generation import RequestCache

    same_prompt = [{"id": "a", "request_sha": "s"}, {"id": "b", "request_sha": "s"}]
    model = RequestCache(tmp_path / "m.jsonl", "g")
    assert model.key(same_prompt[0]) == model.key(same_prompt[1])  # a model sees only the prompt
    baseline = RequestCache(tmp_path / "b.jsonl", "g", per_example=True)
    assert baseline.key(same_prompt[0]) != baseline.key(same_prompt[1])  # an oracle reads gold


def test_a_completion_request_is_sent_raw_without_the_chat_template(model_dir):
    backend = TransformersBackend(model_dir, SAMPLING, ENGINE)
    text = "The symptoms of influenza include"
    messages = [{"role": "user", "content": text}]
    raw = {"id": "raw", "messages": messages, "completion": True}
    chat = {"id": "chat", "messages": messages}
    expected = backend.tokenizer(text)["input_ids"]
    assert backend._prompt_ids(raw) == expected  # the text and the tokenizer's own specials
    assert "<|start_header|>" not in backend.tokenizer.decode(backend._prompt_ids(raw))
    assert "<|start_header|>" in backend.tokenizer.decode(backend._prompt_ids(chat))
    mixed = backend.generate([raw, chat])
    assert mixed[0].prompt_tokens == len(expected)
    assert mixed[1].prompt_tokens > len(expected)
    alone = backend.generate([raw])[0]
    assert alone.output == mixed[0].output  # left padding in a batch changes nothing


def test_cells_of_other_budgets_share_the_engine_and_keep_their_own_max_tokens(model_dir,
                                                                              tmp_path):
    """A model's cells may have other ``max_tokens`` (each task's budget, config/budget.py):
    one engine serves them, a batch never mixes budgets, each cell's outputs and effective
    settings are those of its own budget, as if it had run alone."""
    reqs_path = tmp_path / "requests.jsonl"
    write_jsonl(reqs_path, _requests(3))
    jobs = [_job(_identity(tmp_path, model_dir, budget, f"tiny/medcalc/{mode}"), reqs_path,
                 tmp_path / mode) for mode, budget in (("zero_shot", 3), ("cot", 9))]
    assert generate_cells(jobs, model_dir)["engine_loads"] == 1
    for job, budget in zip(jobs, (3, 9), strict=True):
        meta = json.loads(job.meta.read_text())
        assert meta["effective_settings"]["max_new_tokens"] == budget
        alone = tmp_path / f"alone-{budget}"
        single = _job(_identity(alone, model_dir, budget), reqs_path, alone)
        generate_cells([single], model_dir)
        assert read_jsonl(job.out) == read_jsonl(single.out)
        assert all(g["completion_tokens"] <= budget for g in read_jsonl(job.out))


def test_loop_stop_sees_a_short_period_repeated_over_its_span():
    stop = LoopStop(prompt_width=0, span=16, digits=frozenset(range(20, 40)), eos=0)
    assert stop.looping([1, 2, 3] + [4, 5] * 9)  # period 2 over the last 16 tokens and more
    assert not stop.looping([4, 5] * 8)  # the span, but no token before it to repeat
    assert not stop.looping(list(range(1, 40)))
    # "7. Hypoglycemia\n8. Hypoglycemia\n…": a number counts as any number
    numbered = [9] + [d for n in range(10) for d in (20 + n, 1, 2, 3)]
    assert stop.looping(numbered)
    assert not LoopStop(0, 16, frozenset(), 0).looping(numbered)
    # "- ALT 9.5\n- ALT 10.5\n…": numbers of one digit token and of two
    widening = [d for n in range(10) for d in (4, *((30 + n,) if n < 5 else (21, 20 + n)), 1, 2)]
    assert stop.looping(widening)
    assert not stop.looping(list(range(10, 19)) * 4)  # period 9 > span // 2
    assert stop.looping(list(range(10, 18)) * 4)  # period 8: three times over


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


def test_loop_stop_leaves_a_row_that_ended_alone():
    """A row that ended (its end of sequence, then the padding the batch adds) is no loop."""
    import torch

    stop = LoopStop(prompt_width=4, span=16, digits=frozenset(), eos=0)
    ended = [5, 6, 7, 8, 1, 2, 3, 0] + [0] * 24  # prompt, answer, end of sequence, padding
    looping = [5, 6, 7, 8] + [3, 4] * 14
    done = stop(torch.tensor([ended, looping]), None)
    assert done.tolist() == [False, True]
    assert stop.stopped == {1: 28}
