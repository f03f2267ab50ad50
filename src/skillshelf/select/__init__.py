"""skillshelf.select"""
