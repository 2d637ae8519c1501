# One image, several entry points (cachecoh worker coherence | worker relay | serve gateway | ...).
FROM python:3.11-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
RUN useradd --create-home --uid 10001 cachecoh
WORKDIR /app
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY services ./services
COPY schemas ./schemas
COPY mappings ./mappings
# A regular (not editable) install: the build step copies schemas/ and mappings/ into the
# package, so the image runs from site-packages like any pip install.
RUN pip install . && mkdir -p /app/var && chown -R cachecoh /app/var
USER cachecoh
ENTRYPOINT ["cachecoh"]
CMD ["--help"]
