"""Word lists for the synthetic vault: names of people, organizations, concepts and systems,
and sentence templates in Japanese and English. Kept apart so the generator reads as logic."""

from __future__ import annotations

GIVEN = (
    "Aditya", "Alex", "Amir", "Anna", "Arjun", "Ben", "Bo", "Carlos", "Chen", "Chris", "Daniel",
    "David", "Deepak", "Diana", "Elena", "Emma", "Eric", "Fatima", "Felix", "Gao", "Grace",
    "Hannah", "Hao", "Hiro", "Ian", "Ivan", "Jack", "James", "Jia", "Jin", "Julia", "Kai", "Kate",
    "Kevin", "Lars", "Lei", "Li", "Lin", "Lucas", "Maria", "Mark", "Matei", "Maya", "Min", "Ming",
    "Mohammad", "Nadia", "Nikhil", "Nina", "Omar", "Pablo", "Paul", "Peng", "Priya", "Qiang",
    "Quoc", "Rahul", "Raj", "Ravi", "Rosa", "Ruth", "Sam", "Sara", "Sergey", "Shan", "Sofia",
    "Sunil", "Tao", "Thomas", "Tian", "Tom", "Uma", "Victor", "Wei", "Xin", "Yan", "Yang", "Yi",
    "Ying", "Yuki", "Yuxiong", "Zhen", "Zoe",
)
SURNAME = (
    "Akella", "Anderson", "Bai", "Brown", "Catanzaro", "Chen", "Cho", "Costa", "Dao", "Das",
    "Dean", "Diaz", "Du", "Evans", "Fang", "Feng", "Fischer", "Garcia", "Ghobadi", "Gonzalez",
    "Gupta", "Han", "He", "Hu", "Huang", "Ito", "Iyer", "Jain", "Jiang", "Jin", "Kim", "Kumar",
    "Kwon", "Lee", "Li", "Lin", "Liu", "Lopez", "Luo", "Ma", "Martin", "Meyer", "Miller", "Moritz",
    "Nakamura", "Narayanan", "Nguyen", "Park", "Patel", "Peng", "Qian", "Rao", "Reddy", "Rossi",
    "Sato", "Schmidt", "Shah", "Shen", "Singh", "Smith", "Song", "Stoica", "Sun", "Tan", "Tang",
    "Wang", "Weber", "Wu", "Xu", "Yang", "Yao", "Ye", "Yu", "Zaharia", "Zhang", "Zhao", "Zheng",
    "Zhong", "Zhou", "Zhu",
)
JA_SURNAME = (
    "佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本", "中村", "小林", "加藤", "吉田", "山田",
    "佐々木", "山口", "松本", "井上", "木村", "林", "清水", "山崎", "森", "池田", "橋本", "阿部",
    "石川", "山下", "中島", "石井", "小川", "前田", "岡田", "長谷川", "藤田", "後藤", "近藤",
    "村上", "遠藤", "青木", "坂本", "斉藤", "福田", "太田", "西村", "藤井", "道下",
)
JA_GIVEN = (
    "健一", "誠", "大輔", "翔太", "拓也", "直樹", "和也", "亮", "達也", "隆", "浩二", "幹也",
    "美咲",
    "陽子", "由美", "恵", "彩", "真由美", "花子", "愛", "優子", "智子", "裕子", "明美", "結衣",
    "蓮", "湊", "陽翔", "悠真", "颯太", "葵", "凛", "陽菜", "芽依", "さくら", "大和", "一郎",
)
PLACES = (
    "Aurora", "Bayview", "Cascadia", "Denali", "Everest", "Fjord", "Granite", "Harbor",
    "Highland", "Lakeside", "Meridian", "Northgate", "Oakridge", "Pacific", "Pinecrest",
    "Redwood", "Riverside", "Sierra", "Summit", "Tidewater", "Valley", "Westbrook", "Zenith",
    "Kanto", "Kansai", "Hokuriku", "Kyushu", "Tohoku", "Shikoku", "Chubu",
)
ORG_PATTERNS = (
    "University of {p}", "{p} Institute of Technology", "{p} Research", "{p} Labs",
    "{p} AI", "{p} Systems Lab", "{p} Computing Center", "{p} Networks",
)
JA_ORG_PATTERNS = ("{p}大学", "{p}研究所", "{p}工科大学", "{p}情報研究センター")
JA_PLACES = (
    "東都", "北辰", "南海", "西京", "青葉", "白樺", "若葉", "港北", "桜丘", "富士", "湘南", "筑波",
    "瀬戸", "信州", "琵琶湖", "出雲", "阿蘇", "六甲", "蔵王", "那須",
)
ADJ = (
    "Adaptive", "Asynchronous", "Balanced", "Cache-aware", "Collective", "Compressed",
    "Decentralized", "Disaggregated", "Distributed", "Dynamic", "Elastic", "Fault-tolerant",
    "Federated", "Fine-grained", "Fused", "Gradient", "Heterogeneous", "Hierarchical",
    "Incremental", "Interleaved", "Latency-aware", "Layer-wise", "Learned", "Memory-efficient",
    "Mixed-precision", "Multi-tenant", "Network-aware", "Overlapped", "Paged", "Parallel",
    "Pipelined", "Preemptive", "Quantized", "Selective", "Sharded", "Sparse", "Speculative",
    "Streaming", "Topology-aware", "Zero-copy",
)
NOUN = (
    "Activation Recomputation", "Admission Control", "All-Reduce", "Attention", "Autoscaling",
    "Batching", "Checkpointing", "Communication", "Compilation", "Data Parallelism",
    "Decoding", "Embedding Sharding", "Expert Routing", "Failover", "Gang Scheduling",
    "Gradient Compression", "Inference", "Job Scheduling", "KV Cache", "Load Balancing",
    "Memory Offloading", "Model Parallelism", "Optimizer States", "Pipeline Parallelism",
    "Placement", "Prefetching", "Quantization", "Replication", "Request Routing",
    "Resource Allocation", "Rollback", "Sequence Parallelism", "Serving", "Straggler Mitigation",
    "Tensor Parallelism", "Token Scheduling", "Training", "Weight Streaming",
)
JA_ADJ = (
    "適応的", "非同期", "階層的", "分散", "動的", "弾力的", "選択的", "投機的", "細粒度", "低遅延",
    "省メモリ", "異種混在", "トポロジ考慮", "ネットワーク考慮", "圧縮", "増分", "多段",
    "共有", "局所", "大規模",
)
JA_NOUN = (
    "パイプライン並列", "テンソル並列", "データ並列", "集合通信", "活性化再計算", "勾配圧縮",
    "チェックポイント", "KV キャッシュ管理", "バッチ処理", "ジョブスケジューリング", "負荷分散",
    "メモリ退避", "障害復旧", "量子化", "推論サービング", "モデル配置", "専門家ルーティング",
    "系列並列", "オプティマイザ分割", "帯域割り当て", "リクエスト振り分け", "混合精度訓練",
)
CONSONANTS = ("b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z")
VOWELS = ("a", "e", "i", "o", "u")
SYSTEM_SUFFIX = ("", "", "", "", "-LM", "Serve", "Flow", "DB", "X", "-2", "Net", "Sched")
TITLE_VERB = (
    "Scaling", "Accelerating", "Taming", "Rethinking", "Towards", "Efficient", "Fast",
    "Understanding", "Optimizing", "Serving", "Training", "Sharing",
)
TITLE_OBJECT = (
    "Large Language Models", "Deep Learning Jobs", "GPU Clusters", "Transformer Inference",
    "Mixture-of-Experts Models", "LLM Serving", "Distributed Training", "Multi-tenant Clusters",
    "Long-Context Inference", "Recommendation Models",
)
TITLE_MEANS = (
    "with Pipelining", "via Sharding", "at Scale", "with Almost Free State Management",
    "over Commodity Networks", "with Guarantees", "Using Model Parallelism",
    "on Heterogeneous Hardware", "without Recomputation", "for the Cloud",
)
VENUES = (
    "OSDI", "SOSP", "NSDI", "EuroSys", "ATC", "MLSys", "NeurIPS", "ICML", "ICLR", "SC", "VLDB",
    "KDD", "ASPLOS", "SIGCOMM", "PPoPP", "arXiv", "arXiv", "arXiv",
)
METRICS_JA = ("スループット", "遅延", "メモリ", "帯域", "TTFT", "JCT", "訓練時間", "通信量",
              "コスト")
METRICS_EN = ("throughput", "latency", "memory", "bandwidth", "TTFT", "JCT", "training time",
              "communication", "cost")
TAGS = ("分散学習", "推論サービング", "スケジューリング", "ネットワーク", "メモリ最適化",
        "systems", "ml-systems", "要確認")

JA_SUMMARY = (
    "{c1} と {c2} を組み合わせ、{m} を {x} 倍改善する。",
    "{c1} を前提に、{m} を {p}% 削減する設計を示した。",
    "既存の {c2} の限界を整理し、{c1} による解決策を提案する。",
    "{n} 台の GPU で評価し、{m} が {x} 倍向上した。",
    "{c1} の通信を計算と重ねることで {m} を最大 {p}% 削減した。",
)
EN_SUMMARY = (
    "Combines {c1} with {c2} and improves {m} by {x}x.",
    "Builds on {c1} and reduces {m} by {p}% on {n} GPUs.",
    "Revisits the limits of {c2} and proposes {c1} as a remedy.",
    "Evaluated on {n} GPUs, it improves {m} by up to {x}x.",
    "Overlaps {c1} communication with compute, cutting {m} by {p}%.",
)
JA_METHOD = (
    "{c1} の考え方を {c2} に適用し、層ごとに配置を決める。{sys} はこの設計の実装である。",
    "{c1} と {c2} の両方を扱うスケジューラを持ち、{sys} として公開されている。",
    "中心となる考え方は {c1} で、{c2} は補助的に使う。",
)
EN_METHOD = (
    "It applies {c1} to {c2} and decides placement per layer; {sys} implements the design.",
    "A scheduler handles both {c1} and {c2}; the system is released as {sys}.",
    "The core idea is {c1}, with {c2} as a supporting technique.",
)
JA_CLAIM = (
    "{m} を {x} 倍改善した。", "{m} を {p}% 削減した。", "{n} GPU 構成で {m} が {x} 倍になった。",
    "{m} のオーバーヘッドは {p}% 未満に収まる。",
)
EN_CLAIM = (
    "Improves {m} by {x}x.", "Reduces {m} by {p}%.", "On {n} GPUs, {m} improves {x}x.",
    "Keeps the {m} overhead under {p}%.",
)
JA_PERSON = ("{org} 所属（引用論文の当時）。{c1} の研究者。",
             "{org} で {c1} と {c2} を研究している。")
EN_PERSON = ("Researcher at {org} (at the time of the cited paper), working on {c1}.",
             "Works on {c1} and {c2} at {org}.")
JA_CONCEPT = (
    "{name} は {c1} の一種で、計算と通信の配分を見直す手法群を指す。",
    "{name} は大規模モデルの訓練と推論で {c1} と並んで使われる考え方である。",
)
EN_CONCEPT = (
    "{name} is a family of techniques related to {c1} that rebalance compute and communication.",
    "{name} is used alongside {c1} when training and serving large models.",
)
