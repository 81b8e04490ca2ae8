# The Perdure service image: API replicas run `perdure serve --workers 0`, worker replicas
# `perdure worker`. Both need DATABASE_URL. (Not built in CI: no Docker engine there.)
# Everything installed comes from the hash-pinned locks in requirements/, as on a
# development machine; the project itself is built with the locked setuptools.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
RUN useradd --create-home --uid 10001 perdure
WORKDIR /srv/perdure

COPY requirements ./requirements
RUN pip install --require-hashes -r requirements/main.txt -r requirements/build.txt
COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
RUN pip install --no-deps --no-build-isolation .

USER perdure
EXPOSE 8000
CMD ["perdure", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "0"]
