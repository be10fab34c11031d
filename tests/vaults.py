"""Where the test vaults are. The shared example vault sits beside the project (read-only)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_EXAMPLE = ROOT.parent / "shared" / "vaults" / "distributed-training"
ENGLISH_LAB = ROOT / "tests" / "vaults" / "english-lab"
FOLD_32 = ROOT / "tests" / "vaults" / "fold-32"
DEMO = ROOT / "examples" / "vault"

# Short aliases of the example vault's source pages -> file stems.
S = {
    "Ray": "@2018__OSDI__Ray A Distributed Framework for Emerging AI Applications",
    "GPipe": "@2019__NeurIPS__GPipe Easy Scaling with Micro-Batch Pipeline Parallelism",
    "PipeDream": "@2019__SOSP__PipeDream Generalized Pipeline Parallelism for DNN Training",
    "Megatron": "@2019__arXiv__Megatron-LM Training Multi-Billion Parameter Language Models "
                "Using Model Parallelism",
    "ZeRO": "@2020__SC__ZeRO Memory Optimizations Toward Training Trillion Parameter Models",
    "DeepSpeed": "@2020__KDD__DeepSpeed System Optimizations Enable Training Deep Learning Models "
                 "with Over 100 Billion Parameters",
    "HiveD": "@2020__OSDI__HiveD Sharing a GPU Cluster for Deep Learning with Guarantees",
    "SC21": "@2021__SC__Efficient Large-Scale Language Model Training on GPU Clusters Using "
            "Megatron-LM",
    "FSDP": "@2023__VLDB__PyTorch FSDP Experiences on Scaling Fully Sharded Data Parallel",
    "MLSys": "@2023__MLSys__Reducing Activation Recomputation in Large Transformer Models",
    "FP8": "@2023__arXiv__FP8-LM Training FP8 Large Language Models",
    "Paged": "@2023__SOSP__PagedAttention - Efficient Memory Management for Large Language Model "
             "Serving with PagedAttention",
    "APNet": "@2024__APNet__Understanding Communication Characteristics of Distributed Training",
    "Cassini": "@2024__NSDI__Cassini Network-Aware Job Scheduling in Machine Learning Clusters",
    "DistServe": "@2024__OSDI__DistServe - Disaggregating Prefill and Decoding for "
                 "Goodput-optimized Large Language Model Serving",
    "FFTrainer": "@2025__arXiv__FFTrainer Fast Failover in Large Language Model Training with "
                 "Almost Free State Management",
    "Titans": "@2025__INLG__Taming the Titans - A Survey of Efficient LLM Inference Serving",
    "Slides": "@2026__SpeakerDeck__推論基盤のパフォーマンス検証と最適化戦略",
}
