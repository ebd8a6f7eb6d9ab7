"""Knowledge base: ingestion, chunking, embeddings, a Chroma index and scoped hybrid retrieval.

Nothing heavy loads here: chromadb, sentence-transformers and rank_bm25 are imported inside the
functions that need them.
"""

from aka.knowledge.base import Embedder, KnowledgeBase
from aka.knowledge.chroma import ChromaKnowledgeBase
from aka.knowledge.embed import HashEmbedder, MiniLMEmbedder, make_embedder
from aka.knowledge.ingest import ingest
from aka.knowledge.inmemory import InMemoryKnowledgeBase
from aka.spec.knowledge import LAYERS, Chunk, Hit, IngestReport, Scope, Skipped
from aka.knowledge.retrieve import build_query

__all__ = [
    "LAYERS", "Chunk", "ChromaKnowledgeBase", "Embedder", "HashEmbedder", "Hit", "InMemoryKnowledgeBase",
    "IngestReport", "KnowledgeBase", "MiniLMEmbedder", "Scope", "Skipped", "build_query", "ingest",
    "make_embedder",
]
