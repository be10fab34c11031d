# The vaultkg API image; Neo4j runs in its own container (docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

COPY pyproject.toml README.md constraints.txt ./
COPY graph ./graph
COPY api ./api
COPY loaders ./loaders
COPY queries ./queries
RUN pip install -c constraints.txt .

RUN useradd --create-home --uid 10001 vaultkg
USER vaultkg

EXPOSE 8000
CMD ["vaultkg", "--help"]
